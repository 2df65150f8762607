package dev.headway.internal.signal;

import dev.headway.HttpFields;
import dev.headway.RateLimitSignal;
import dev.headway.SanityCaps;
import dev.headway.SignalWarning;
import dev.headway.dialect.Dialect;
import dev.headway.dialect.DialectContext;
import dev.headway.internal.adapter.Swallowed;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Runs the dialects over one response, applies the caps, reads the body, classifies throttling
 * and builds the signal. Thread-safe (holds only immutable configuration).
 *
 * <p>How one response is read:
 *
 * <ol>
 *   <li>{@code Age}: a positive value means the response came from a cache, whose rate-limit
 *       fields may be stale; policies and limits are then ignored with a
 *       {@link SignalWarning.Kind#CACHED} warning (draft section 7.3). {@code Retry-After} and the
 *       body are still read: section 7.3 speaks only of the RateLimit fields.
 *   <li>Each dialect, in order, looks up the few header names it knows (hash lookups; the
 *       {@code Date} field is parsed only if one of them needs it; a built-in dialect none of
 *       whose name families ({@code FieldFamilies}) is present is skipped) and reports to a
 *       {@link SignalCollector}, which caps values and keeps the first report per (policy,
 *       partition key). A dialect that throws is reported as a warning and skipped.
 *   <li>For 403, 429 and 503 with a JSON content type (or none, when the body starts with
 *       <code>{</code>), the body's hints; on any status, a GraphQL cost extension
 *       ({@link BodyReader}). The body is read through {@link BodyHints}: without Jackson
 *       ({@link JsonBodies}) it is skipped, and a {@link LinkageError} from it (an incompatible
 *       Jackson) means no body hint and a warning, never a failed request.
 *   <li>Throttled: a 429; a 503 or 403 with a retry delay; a 403 with a remaining count of zero
 *       (GitHub's secondary limits); a draft problem type; or a dialect that said so.
 * </ol>
 */
public final class SignalReader {
  /** The logger of a dialect's failure (a bug: every dialect is meant to be total). */
  static final String LOGGER = "dev.headway.signal";
  private final SanityCaps caps;
  private final List<Dialect> dialects;
  /** The {@link FieldFamilies} of each dialect, by index; 0 for a dialect from elsewhere. */
  private final int[] families;

  private final BodyHints bodyHints;

  /** Creates a reader. */
  public SignalReader(SanityCaps caps, List<Dialect> dialects) {
    this(caps, dialects, JsonBodies.reader());
  }

  /** Creates a reader that reads bodies with {@code bodyHints}. */
  SignalReader(SanityCaps caps, List<Dialect> dialects, BodyHints bodyHints) {
    this.bodyHints = bodyHints;
    this.caps = caps;
    this.dialects = List.copyOf(dialects);
    this.families = new int[this.dialects.size()];
    for (int i = 0; i < families.length; i++) {
      families[i] = this.dialects.get(i) instanceof FieldFamilies.Filtered filtered
          ? filtered.fieldFamilies() : 0;
    }
  }

  /**
   * Returns whether {@link #read} reads the body of a response with this status and these
   * headers for all its hints ({@link BodyHints#applies}); loads no JSON library.
   */
  public static boolean readsBody(int status, HttpFields headers) {
    return BodyHints.applies(status, headers);
  }

  /** Reads one response; never throws for anything a server sends. */
  public RateLimitSignal read(int status, HttpFields headers, byte @Nullable [] body,
      Instant receivedAt) {
    return read(status, headers, body, receivedAt, null);
  }

  /**
   * Reads one response, {@code serverClockAtLeast} the earliest the server's clock can have read
   * when it answered (null if not known; see {@link DialectContext#exactNow()}).
   */
  public RateLimitSignal read(int status, HttpFields headers, byte @Nullable [] body,
      Instant receivedAt, @Nullable Instant serverClockAtLeast) {
    return read(DialectContext.of(status, headers, receivedAt, serverClockAtLeast), body);
  }

  /**
   * Reads one response through {@code context}, which the caller keeps to ask for what was read
   * on the way, such as its {@link DialectContext#serverDate()}, without parsing it again.
   */
  public RateLimitSignal read(DialectContext context, byte @Nullable [] body) {
    int status = context.status();
    int safeStatus = status < 0 || status > 999 ? 0 : status;
    try {
      return readUnchecked(safeStatus, context, body);
    } catch (RuntimeException | StackOverflowError e) {
      // Defence in depth: every parser is total, so this is a bug; never break the request.
      Swallowed.log(LOGGER, "reading rate-limit signals", e);
      return new RateLimitSignal(safeStatus, List.of(), List.of(), Optional.empty(),
          Optional.empty(), Optional.empty(), List.of(), List.of(),
          List.of(new SignalWarning("*", SignalWarning.Kind.MALFORMED,
              "signal parsing failed: " + e)), safeStatus == 429);
    }
  }

  private RateLimitSignal readUnchecked(int status, DialectContext context,
      byte @Nullable [] body) {
    HttpFields headers = context.headers();
    SignalCollector collector = new SignalCollector(caps, age(headers));
    int present = FieldFamilies.present(headers);
    for (int i = 0; i < families.length; i++) {
      if (families[i] != 0 && (families[i] & present) == 0) {
        continue; // none of the names it reads is present: it would find nothing
      }
      Dialect dialect = dialects.get(i);
      String name = dialect.name();
      collector.begin(name);
      try {
        dialect.read(context, collector);
      } catch (RuntimeException e) {
        Swallowed.log(LOGGER, "dialect " + name, e);
        collector.addWarning(SignalCollector.UNKNOWN_FIELD, SignalWarning.Kind.MALFORMED,
            "dialect " + name + " failed: " + e);
      }
    }
    BodyHints.Result bodyResult = BodyHints.Result.NONE;
    if (body != null && body.length > 0) {
      collector.begin("json-body");
      try {
        bodyResult = bodyHints.read(status, body, headers, context, collector);
      } catch (LinkageError e) {
        // An absent or incompatible JSON library: no body hint, never a failed request.
        collector.addWarning("body", SignalWarning.Kind.DROPPED,
            "body not read: JSON library unavailable (" + e + ")");
      }
      if (!bodyResult.isEmpty()) {
        collector.throttledIfDraftProblem(bodyResult.problemType());
        collector.recognise();
      }
    }
    collector.finish();
    Optional<Duration> retryAfter = collector.retryAfterValue();
    boolean throttled = collector.throttledReported()
        || status == 429
        || ((status == 503 || status == 403) && retryAfter.isPresent())
        || (status == 403 && collector.hasZeroRemaining());
    return new RateLimitSignal(status, collector.policies(), collector.limits(), retryAfter,
        bodyResult.retryAfter(), bodyResult.problemType(), bodyResult.violatedPolicies(),
        collector.dialects(), collector.warnings(), throttled, collector.resets(),
        collector.documentedDelayValue(), collector.shouldRetryValue(), collector.costValue());
  }

  /**
   * Returns the {@code Age} in seconds, saturated; 0 if absent or not a non-negative integer. A
   * value too large for a {@code long} is still a positive age (RFC 9111 section 5.1).
   */
  private static long age(HttpFields headers) {
    List<String> values = headers.values("age");
    if (values.isEmpty()) {
      return 0;
    }
    String value = values.get(0).trim();
    if (value.isEmpty()) {
      return 0;
    }
    long age = 0;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < '0' || c > '9') {
        return 0;
      }
      age = age > (Long.MAX_VALUE - 9) / 10 ? Long.MAX_VALUE : age * 10 + (c - '0');
    }
    return age;
  }
}
