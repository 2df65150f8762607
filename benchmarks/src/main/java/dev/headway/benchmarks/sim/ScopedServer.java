package dev.headway.benchmarks.sim;

import dev.headway.HttpFields;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A server with several quotas on one key, each counting only the requests it governs (GitHub's
 * resources, Discord's route buckets beside its global limit, an LLM API's per-model limits). A
 * request is admitted only if every quota that governs it has room; then each of them counts it.
 * A refused request is charged to the first quota (in the server's order) that had no room, and
 * the response tells what the vendor tells. Not thread-safe.
 */
abstract class ScopedServer implements SimServer {
  private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.RFC_1123_DATE_TIME;

  final List<Meter> meters;

  ScopedServer(List<Meter> meters) {
    this.meters = List.copyOf(meters);
  }

  /**
   * Renders the response's vendor headers.
   *
   * @param fields where to add them ({@code Date} is already there)
   * @param request the request
   * @param governing the quotas governing it, in the server's order
   * @param refusedBy the quota that refused it, or null if admitted
   * @param nowNanos virtual time
   * @param wallNow the server's wall clock
   */
  abstract void render(HttpFields.Builder fields, SimRequest request, List<Meter> governing,
      Meter refusedBy, long nowNanos, Instant wallNow);

  @Override
  public Reply handle(SimRequest request, long nowNanos, Instant wallNow) {
    List<Meter> governing = governing(request);
    Meter refusedBy = null;
    for (Meter m : governing) {
      if (!m.fits(nowNanos, m.cost(request))) {
        refusedBy = m;
        break;
      }
    }
    if (refusedBy == null) {
      for (Meter m : governing) {
        m.take(nowNanos, m.cost(request));
      }
    } else {
      refusedBy.throttled++;
    }
    HttpFields.Builder fields = HttpFields.builder();
    fields.add("Content-Type", "application/json");
    fields.add("Date", HTTP_DATE.format(
        Instant.ofEpochSecond(wallNow.getEpochSecond()).atOffset(ZoneOffset.UTC)));
    render(fields, request, governing, refusedBy, nowNanos, wallNow);
    Meter refused = refusedBy;
    return new Reply(refused == null, fields.build(), () -> String.format(Locale.ROOT,
        "%s %s %s%s", refused == null ? "200" : "429 (" + refused.name + ")", request.method(),
        request.path(), request.model().isEmpty() ? "" : " " + request.model()));
  }

  @Override
  public long nextAdmission(SimRequest request, long nowNanos) {
    List<Meter> governing = governing(request);
    long t = nowNanos;
    while (true) {
      long next = t;
      for (Meter m : governing) {
        next = Math.max(next, m.nextFit(t, m.cost(request)));
      }
      if (next == t) {
        return t;
      }
      t = next;
    }
  }

  @Override
  public long windowNanos() {
    return meters.get(0).windowNanos;
  }

  @Override
  public List<QuotaUse> quotaUse(long durationNanos) {
    List<QuotaUse> uses = new ArrayList<>();
    for (Meter m : meters) {
      uses.add(m.use(durationNanos));
    }
    return uses;
  }

  List<Meter> governing(SimRequest request) {
    List<Meter> governing = new ArrayList<>(2);
    for (Meter m : meters) {
      if (m.governs(request)) {
        governing.add(m);
      }
    }
    return governing;
  }

  static long ceilSeconds(long nanos) {
    return HeaderStyle.ceilSeconds(nanos);
  }

  /** Returns epoch seconds of {@code wallNow + nanos}, rounded up. */
  static long epochSecondsAfter(Instant wallNow, long nanos) {
    return ceilSeconds(wallNow.getEpochSecond() * 1_000_000_000L + wallNow.getNano() + nanos);
  }

  /** Formats nanoseconds as seconds with three decimals, as Discord does. */
  static String decimalSeconds(long nanos) {
    return String.format(Locale.ROOT, "%.3f", Math.ceil(nanos / 1e6) / 1e3);
  }
}
