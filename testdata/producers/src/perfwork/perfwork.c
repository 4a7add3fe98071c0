/* perfwork burns CPU in a few call paths, on two threads with their own
 * names (comm), for perf record -g (frame pointers):
 *   cc -g -O1 -fno-omit-frame-pointer -o perfwork perfwork.c -lm -lpthread */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile uint64_t sink;

__attribute__((noinline)) static uint64_t spin(uint64_t n) {
	uint64_t x = 88172645463325252ull;
	for (uint64_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

__attribute__((noinline)) static double trig(int n) {
	double s = 0;
	for (int i = 0; i < n; i++)
		s += sin(i * 0.001) * cos(i * 0.002);
	return s;
}

__attribute__((noinline)) static void copy_around(int n) {
	static char a[1 << 16], b[1 << 16];
	for (int i = 0; i < n; i++) {
		memcpy(b, a, sizeof a);
		a[i & 0xffff] = b[(i * 7) & 0xffff];
	}
}

__attribute__((noinline)) static uint64_t fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__attribute__((noinline)) static void hot(void) { sink += spin(240000000); }
__attribute__((noinline)) static void warm(void) { sink += (uint64_t)trig(16000000); }
__attribute__((noinline)) static void mixed(void) {
	copy_around(80000);
	sink += fib(32);
	sink += spin(40000000);
}

static void *crunch(void *arg) {
	(void)arg;
	pthread_setname_np(pthread_self(), "crunch");
	warm();
	return NULL;
}

int main(void) {
	pthread_t t;
	if (pthread_create(&t, NULL, crunch, NULL) != 0)
		return 1;
	hot();
	pthread_join(t, NULL);
	mixed();
	printf("%llu\n", (unsigned long long)sink);
	return 0;
}
