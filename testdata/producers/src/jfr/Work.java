// Work burns CPU, allocates, and contends on a monitor (synchronized) and
// a ReentrantLock (park), for OpenJDK's Flight Recorder:
//   javac Work.java && java -XX:StartFlightRecording=filename=rec.jfr,settings=profile Work
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

public class Work {
    static final Object monitor = new Object();
    static final ReentrantLock lock = new ReentrantLock();
    static final List<byte[]> keep = new ArrayList<>();
    static long sink;

    static long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

    static void allocate(int n) {
        for (int i = 0; i < n; i++) {
            keep.add(new byte[1024 + (i % 64) * 64]);
            if (keep.size() > 20000) keep.clear();
        }
    }

    static void holdMonitor() throws InterruptedException {
        synchronized (monitor) { Thread.sleep(25); }
    }

    static void holdLock() throws InterruptedException {
        lock.lock();
        try { Thread.sleep(25); } finally { lock.unlock(); }
    }

    public static void main(String[] args) throws Exception {
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 3; t++) {
            Thread th = new Thread(() -> {
                try {
                    for (int i = 0; i < 12; i++) { holdMonitor(); holdLock(); }
                } catch (InterruptedException e) { throw new RuntimeException(e); }
            }, "contender-" + t);
            threads.add(th);
            th.start();
        }
        long end = System.currentTimeMillis() + 1500;
        while (System.currentTimeMillis() < end) {
            sink += fib(27);
            allocate(5000);
        }
        for (Thread th : threads) th.join();
        System.out.println(sink);
    }
}
