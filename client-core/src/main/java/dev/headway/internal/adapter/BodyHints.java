package dev.headway.internal.adapter;

import java.time.Duration;
import java.util.Arrays;
import java.util.OptionalLong;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The rule by which every adapter reads a throttled response's body for rate-limit hints: bounded
 * in bytes ({@link dev.headway.SignalParser#MAX_BODY_BYTES} for the parser, a hold limit of the
 * adapter's own for keeping it) and in time ({@link #WAIT}). A body that has not arrived within
 * {@link #WAIT} of its headers is not waited for: the hint is skipped and the response is decided
 * from its status and headers, so that a slow, never-ending or lying body delays a call by at most
 * {@link #WAIT} more than it would take without Headway. A body has arrived once it ended, or once
 * all the bytes its {@code Content-Length} declares were read, whether or not its end came yet (a
 * client's thread can be descheduled between the two); a body of unknown length only once it
 * ended.
 */
public final class BodyHints {
  /**
   * How long an adapter waits, in real time, for a throttled body to arrive before it decides
   * without it. Real time, not the pacer's ticker: it bounds network I/O, which happens in real
   * time whatever clock paces the calls. Short enough to be unnoticeable next to the wait that a
   * throttled call is about to make; long enough for a body sent right after its headers (nearly
   * every 429 and 503 body) to arrive on any working network.
   */
  public static final Duration WAIT = Duration.ofMillis(100);

  /**
   * The most bytes of a throttled response's body an adapter holds in memory while the call
   * waits to retry; a longer body stays unread on its connection instead. 64 KiB: error bodies of
   * 429s and 503s are a few hundred bytes.
   */
  public static final int KEEP_BYTES = 64 * 1024;

  /**
   * The timer of every adapter's {@link #WAIT}: one daemon thread, {@code headway-body-timer},
   * shared by all pacers, started by the first wait and gone after a second idle (a cancelled
   * wait leaves its queue at once), so that nothing of Headway's outlives its calls for long.
   */
  private static final ScheduledThreadPoolExecutor TIMER = timer();

  private static ScheduledThreadPoolExecutor timer() {
    ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, runnable -> {
      Thread thread = new Thread(runnable, "headway-body-timer");
      thread.setDaemon(true);
      return thread;
    });
    timer.setKeepAliveTime(1, TimeUnit.SECONDS);
    timer.allowCoreThreadTimeOut(true);
    timer.setRemoveOnCancelPolicy(true);
    return timer;
  }

  /**
   * Runs {@code task} on Headway's body timer once {@link #WAIT} has passed (real time) and
   * returns what cancels it. The task must be short and never block: it hands the work on to a
   * pool of the adapter's or completes a future. A task that throws ends only itself.
   */
  public static Future<?> afterWait(Runnable task) {
    return TIMER.schedule(task, WAIT.toNanos(), TimeUnit.NANOSECONDS);
  }

  /**
   * Returns the length in bytes of the body a client gives, as the response declares it, or empty
   * if it is unknown: the rule by which every adapter knows when a throttled body has arrived
   * before its end is signalled. {@code contentLength} is the {@code Content-Length} field value
   * (several fields joined by commas); {@code contentEncoding} the {@code Content-Encoding} field
   * value (likewise), or {@code null} where the client never decodes a body and the declared
   * length then counts the bytes it gives; {@code transferEncoding} the
   * {@code Transfer-Encoding} field value. The length is unknown when it is absent, is anything
   * but one run of at most 18 digits (a sign, several values, an exabyte or more: RFC 9110,
   * section 8.6), when a {@code Transfer-Encoding} frames the body, or when the body is
   * encoded (a coding other than {@code identity}: a client may decode it, and what it gives is
   * then not what was declared). Unknown is always safe: such a body has arrived only once it
   * ended.
   */
  public static OptionalLong declaredLength(@Nullable String contentLength,
      @Nullable String contentEncoding, @Nullable String transferEncoding) {
    return declaredLength(digits(contentLength), contentEncoding, transferEncoding != null);
  }

  /**
   * Returns the declared length as {@link #declaredLength(String, String, String)} does, for a
   * client that parsed {@code Content-Length} itself: {@code contentLength} is its figure (negative
   * if unknown), {@code framed} whether a {@code Transfer-Encoding} (chunked) frames the body.
   */
  public static OptionalLong declaredLength(long contentLength, @Nullable String contentEncoding,
      boolean framed) {
    if (contentLength < 0 || framed || encoded(contentEncoding)) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(contentLength);
  }

  /** Returns {@code value} as a number if it is 1 to 18 ASCII digits, else -1. */
  private static long digits(@Nullable String value) {
    String trimmed = value == null ? "" : value.strip();
    if (trimmed.isEmpty() || trimmed.length() > 18) {
      return -1;
    }
    long number = 0;
    for (int i = 0; i < trimmed.length(); i++) {
      char c = trimmed.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      number = number * 10 + (c - '0');
    }
    return number;
  }

  /** Returns whether any coding listed in {@code contentEncoding} is other than identity. */
  private static boolean encoded(@Nullable String contentEncoding) {
    return contentEncoding != null && Arrays.stream(contentEncoding.split(",")).map(String::strip)
        .anyMatch(coding -> !coding.isEmpty() && !coding.equalsIgnoreCase("identity"));
  }

  private BodyHints() {}
}
