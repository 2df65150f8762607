package dev.headway.internal.pacer;

import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.PolicySnapshot;
import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaUnit;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/** What the fast lane's tests share: one route, a count, and a look inside a permit. */
final class LaneFixture {
  static final URI ITEMS = URI.create("https://api.example.com/items");
  static final RequestInfo GET = RequestInfo.get(ITEMS);

  private LaneFixture() {}

  /** A response's signal: policy "default" of {@code quota} per minute, {@code remaining} left. */
  static RateLimitSignal limit(long quota, long remaining) {
    return new RateLimitSignal(200,
        List.of(new QuotaPolicy("default", quota, QuotaUnit.REQUESTS,
            Optional.of(Duration.ofSeconds(60)), Optional.empty(), "ietf")),
        List.of(new QuotaLimit("default", remaining, Optional.of(Duration.ofSeconds(600)),
            Optional.empty(), "ietf")),
        Optional.empty(), Optional.empty(), Optional.empty(), List.of(), List.of("ietf"),
        List.of(), false);
  }

  /** The partition of {@link #GET}, found through a permit taken and given back. */
  static Partition partition(Pacer pacer) throws Exception {
    Permit permit = pacer.acquire(GET);
    Partition base = ((PermitImpl) permit).base;
    permit.release();
    return base;
  }

  /** Whether {@code permit} is still the lane's (not adopted by the monitor). */
  static boolean inLane(Permit permit) {
    return ((PermitImpl) permit).state == PermitImpl.LANE;
  }

  /** The permit's commit number. */
  static long seq(Permit permit) {
    return ((PermitImpl) permit).seq;
  }

  /** The "default" policy as {@code quota(uri)} shows it. */
  static PolicySnapshot policy(Pacer pacer) {
    return pacer.quota(ITEMS).policy("default").orElseThrow();
  }

  /**
   * Runs {@code threads} callers of {@link #GET} at once, {@code each} acquires apiece (caller
   * {@code t} keeps {@code 1 + t % 3} permits out, releasing the oldest), while one more thread
   * takes snapshots, which close the lane under the monitor. Returns the commit number of every
   * permit handed out.
   */
  static List<Long> hammer(ExecutorService pool, Pacer pacer, int threads, int each)
      throws Exception {
    AtomicBoolean running = new AtomicBoolean(true);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<long[]>> done = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int keep = 1 + t % 3; // most release at once, some keep two or three out
      done.add(pool.submit(() -> {
        start.await();
        ArrayDeque<Permit> mine = new ArrayDeque<>();
        long[] seqs = new long[each];
        for (int i = 0; i < seqs.length; i++) {
          Permit permit = pacer.acquire(GET);
          seqs[i] = seq(permit);
          mine.add(permit);
          if (mine.size() >= keep) {
            mine.poll().release();
          }
        }
        while (!mine.isEmpty()) {
          mine.poll().release();
        }
        return seqs;
      }));
    }
    Future<?> looker = pool.submit(() -> {
      start.await();
      while (running.get()) {
        pacer.quota(ITEMS);
        Thread.yield();
      }
      return null;
    });
    start.countDown();
    List<Long> seqs = new ArrayList<>();
    try {
      for (Future<long[]> f : done) {
        for (long seq : f.get(60, TimeUnit.SECONDS)) {
          seqs.add(seq);
        }
      }
    } finally {
      running.set(false);
    }
    looker.get(10, TimeUnit.SECONDS);
    return seqs;
  }
}
