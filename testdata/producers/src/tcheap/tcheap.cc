// tcheap allocates through tcmalloc (malloc, calloc, realloc,
// posix_memalign, new[]) from a few call paths and writes:
//   PREFIX.0001.heap, PREFIX.0002.heap  HEAPPROFILE=PREFIX dumps, one after
//                                       each phase: a base/diff_base pair
//   DIR/heap_v2.heap                    MallocExtension::GetHeapSample
//                                       (TCMALLOC_SAMPLE_PARAMETER set)
//   DIR/growth.heap                     MallocExtension::GetHeapGrowthStacks
// c++ -g -O1 -fno-omit-frame-pointer -o tcheap tcheap.cc -ltcmalloc (see ../../regen.sh)
#include <gperftools/heap-profiler.h>
#include <gperftools/malloc_extension.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

void *volatile keep[100000]; // volatile: the compiler may not drop the allocations
static int nkeep;

__attribute__((noinline)) static void small_objects(int n) {
	for (int i = 0; i < n; i++)
		keep[nkeep++] = malloc(48);
}

__attribute__((noinline)) static void zeroed_tables(int n) {
	for (int i = 0; i < n; i++)
		keep[nkeep++] = calloc(256, 16);
}

__attribute__((noinline)) static void growing_buffer(int steps) {
	char *b = nullptr;
	size_t size = 1024;
	for (int i = 0; i < steps; i++, size *= 2)
		b = static_cast<char *>(realloc(b, size));
	keep[nkeep++] = b;
}

__attribute__((noinline)) static void aligned_pages(int n) {
	for (int i = 0; i < n; i++) {
		void *p;
		if (posix_memalign(&p, 4096, 3 * 4096) == 0)
			keep[nkeep++] = p;
	}
}

__attribute__((noinline)) static void arrays(int n) {
	for (int i = 0; i < n; i++)
		keep[nkeep++] = new double[512];
}

// release frees the first n blocks kept, so that the dumps' in-use and
// allocated totals differ (pprof then reads four sample types).
__attribute__((noinline)) static void release(int n) {
	for (int i = 0; i < n; i++) {
		free(keep[i]);
		keep[i] = nullptr;
	}
}

__attribute__((noinline)) static void phase_one() {
	small_objects(20000);
	zeroed_tables(200);
	release(5000);
}

__attribute__((noinline)) static void phase_two() {
	growing_buffer(14);
	aligned_pages(300);
	arrays(400);
	small_objects(10000);
}

static void write_text(const std::string &path, const std::string &text) {
	std::ofstream f(path);
	f << text;
	if (!f) {
		perror(path.c_str());
		exit(1);
	}
}

int main(int argc, char **argv) {
	if (argc != 2) {
		fprintf(stderr, "usage: tcheap DIR\n");
		return 2;
	}
	phase_one();
	if (IsHeapProfilerRunning())
		HeapProfilerDump("phase one");
	phase_two();
	if (IsHeapProfilerRunning())
		HeapProfilerDump("phase two");

	std::string s;
	MallocExtension::instance()->GetHeapSample(&s);
	write_text(std::string(argv[1]) + "/heap_v2.heap", s);
	s.clear();
	MallocExtension::instance()->GetHeapGrowthStacks(&s);
	write_text(std::string(argv[1]) + "/growth.heap", s);
	return 0;
}
