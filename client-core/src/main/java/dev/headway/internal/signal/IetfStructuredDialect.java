package dev.headway.internal.signal;

import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaUnit;
import dev.headway.SignalWarning;
import dev.headway.dialect.DialectContext;
import dev.headway.dialect.FieldValues;
import dev.headway.dialect.SignalSink;
import dev.headway.internal.sf.BareItem;
import dev.headway.internal.sf.Item;
import dev.headway.internal.sf.Member;
import dev.headway.internal.sf.Parameters;
import dev.headway.internal.sf.StructuredFieldException;
import dev.headway.internal.sf.StructuredFields;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * {@code RateLimit-Policy} and {@code RateLimit} as draft-ietf-httpapi-ratelimit-headers -08 and
 * later define them (sections 3 and 4): RFC 9651 Lists of Items named by a String (a Token is
 * tolerated, as in the draft's own appendix B.3.1), with parameters {@code q}, {@code qu},
 * {@code w}, {@code pk} (policy) and {@code r}, {@code t}, {@code pk} (limit). Several field
 * lines are joined with {@code ", "}; unknown parameters are ignored.
 *
 * <p>A field that is not a valid List is ignored with a warning (section 7: malformed fields
 * MUST be ignored). An item without {@code q} (policy) or {@code r} (limit), or with a negative
 * or non-integer one, is dropped with a warning. Integer-valued policy items ({@code 100;w=60})
 * and a Dictionary-shaped {@code RateLimit} ({@code limit=100, remaining=50, reset=5}) belong to
 * the earlier drafts and are left to {@link DraftPolliDialect}. Stateless, but for the
 * {@link PolicyMemo} of recent {@code RateLimit-Policy} values.
 *
 * <p>The draft's later wording, read tolerantly: -11 keeps the wire syntax and reads {@code r}
 * as the quota available and {@code t} as the effective window (the seconds until the available
 * quota is restored), which is what a limit's remaining count and reset already mean here. The
 * open proposal that renames the limit parameters is read too: {@code a} for {@code r},
 * {@code w} (on a {@code RateLimit} item) for {@code t}, each only when the older name is absent;
 * its cost parameter {@code c} is the units the request cost
 * ({@link SignalSink#cost(long, String)}); and its {@code RateLimit-Partition} field (an Item: a
 * Byte Sequence, or a String or Token taken as its UTF-8 bytes) is the partition key of every
 * policy and limit item without a {@code pk} of its own.
 *
 * <p>A policy item and the limit item of the same name in one response describe one policy: when
 * only one of them carries a {@code pk} (express-rate-limit's {@code draft-8} headers put it on
 * the policy item alone), the other takes it, so both land in the same partition. An item's own
 * {@code pk} and a {@code RateLimit-Partition} field come first.
 */
final class IetfStructuredDialect implements FieldFamilies.Filtered {
  static final String NAME = "ietf-structured";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public int fieldFamilies() {
    return FieldFamilies.RATELIMIT;
  }

  @Override
  public void read(DialectContext context, SignalSink sink) {
    // joined: no list per lookup (this runs on every response that has the fields).
    String partitionField = context.headers().joined("ratelimit-partition");
    Optional<String> partition = partitionField == null ? Optional.empty()
        : partition(partitionField, sink);
    String policies = context.headers().joined("ratelimit-policy");
    String limits = context.headers().joined("ratelimit");
    if (limits != null && isDictionaryShaped(limits)) {
      limits = null;
    }
    // A policy item and the limit item of its name are one policy: when only one of them gives
    // a pk (express-rate-limit's draft-8 puts it on the policy only), it is the other's too.
    // Without a RateLimit-Partition, the policies wait for the limits' keys before they go out;
    // fields that name no pk at all (the usual case) need no pairing, and allocate nothing.
    Pairing pairing = policies != null && limits != null && partition.isEmpty()
        && (policies.contains("pk=") || limits.contains("pk=")) ? new Pairing(sink) : null;
    if (policies != null) {
      SignalSink policySink = pairing != null ? pairing : sink;
      if (partition.isPresent()) {
        readPolicies(policies, partition, policySink);
      } else {
        // A server sends the same policies on every response: a value read before is not
        // parsed again.
        PolicyMemo.read(policies, policySink,
            (value, s) -> readPolicies(value, Optional.empty(), s));
      }
    }
    if (limits != null) {
      readLimits(limits, partition, pairing, sink);
    }
    if (pairing != null) {
      pairing.flush();
    }
  }

  static String join(List<String> lines) {
    return lines.size() == 1 ? lines.get(0) : String.join(", ", lines);
  }

  /**
   * Returns whether a field value starts like a Dictionary member {@code key=} (draft -07's
   * {@code limit=100, remaining=50}) rather than a List item.
   */
  static boolean isDictionaryShaped(String value) {
    int i = 0;
    int length = value.length();
    while (i < length && value.charAt(i) == ' ') {
      i++;
    }
    if (i == length) {
      return false;
    }
    char first = value.charAt(i);
    if (!((first >= 'a' && first <= 'z') || first == '*')) {
      return false;
    }
    while (i < length) {
      char c = value.charAt(i);
      if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.'
          || c == '*') {
        i++;
      } else {
        return c == '=';
      }
    }
    return false;
  }

  /**
   * Returns the partition key a {@code RateLimit-Partition} field names, as a {@code pk} would
   * be spelled (base64); empty, with a warning, if it is not one Item of a usable type.
   */
  private static Optional<String> partition(String value, SignalSink sink) {
    Item item;
    try {
      item = StructuredFields.parseItem(value);
    } catch (StructuredFieldException e) {
      sink.warn("ratelimit-partition", SignalWarning.Kind.MALFORMED,
          "not a structured-field Item (" + e.getMessage() + "): " + FieldValues.quote(value));
      return Optional.empty();
    }
    byte[] bytes;
    if (item.value() instanceof BareItem.ByteSequenceItem b) {
      bytes = b.value();
    } else if (name(item.value()) != null) {
      bytes = name(item.value()).getBytes(StandardCharsets.UTF_8);
    } else {
      sink.warn("ratelimit-partition", SignalWarning.Kind.MALFORMED,
          "not a Byte Sequence, String or Token: " + sf(item.value()));
      return Optional.empty();
    }
    if (bytes.length == 0 || bytes.length > 192) {
      sink.warn("ratelimit-partition", SignalWarning.Kind.DROPPED,
          "partition key of " + bytes.length + " bytes ignored (1 to 192)");
      return Optional.empty();
    }
    return Optional.of(Base64.getEncoder().encodeToString(bytes));
  }

  private static void readPolicies(String value, Optional<String> partition, SignalSink sink) {
    List<Member> members;
    try {
      members = StructuredFields.parseList(value);
    } catch (StructuredFieldException e) {
      sink.warn("ratelimit-policy", SignalWarning.Kind.MALFORMED,
          "not a structured-field List (" + e.getMessage() + "): " + FieldValues.quote(value));
      return;
    }
    for (int i = 0; i < members.size(); i++) {
      if (!(members.get(i) instanceof Item item)) {
        sink.warn("ratelimit-policy", SignalWarning.Kind.MALFORMED, "inner list ignored: "
            + sf(members.get(i)));
        continue;
      }
      if (item.value() instanceof BareItem.IntegerItem) {
        continue; // draft -04..-07 quota policy: DraftPolliDialect reads it
      }
      String name = name(item.value());
      if (name == null) {
        sink.warn("ratelimit-policy", SignalWarning.Kind.MALFORMED,
            "policy name is not a String: " + sf(item.value()));
        continue;
      }
      Parameters params = item.parameters();
      // Every problem of the item is reported before it is dropped.
      long quota = nonNegative("ratelimit-policy", name, "q", params.get("q"), true, sink);
      boolean dropped = quota < 0;
      QuotaUnit unit = QuotaUnit.REQUESTS;
      BareItem qu = params.get("qu");
      if (qu != null) {
        String token = name(qu);
        Optional<QuotaUnit> parsed = token == null ? Optional.empty() : QuotaUnit.parse(token);
        if (parsed.isEmpty()) {
          sink.warn("ratelimit-policy", SignalWarning.Kind.MALFORMED,
              "policy " + FieldValues.quote(name) + " dropped: unknown quota unit "
                  + sf(qu));
          dropped = true;
        } else {
          unit = parsed.get();
        }
      }
      Optional<Duration> window = Optional.empty();
      BareItem w = params.get("w");
      if (w != null) {
        long seconds = nonNegative("ratelimit-policy", name, "w", w, false, sink);
        if (seconds == 0) {
          sink.warn("ratelimit-policy", SignalWarning.Kind.DROPPED,
              "policy " + FieldValues.quote(name) + ": w=0 ignored (must be positive)");
        } else if (seconds > 0) {
          window = Durations.ofSeconds(seconds);
        }
      }
      Optional<String> pk = partitionKey("ratelimit-policy", name, params, sink);
      if (pk == null || dropped) {
        continue;
      }
      pk = pk.or(() -> partition);
      sink.policy(new QuotaPolicy(name, quota, unit, window, pk, NAME), "ratelimit-policy",
          "ratelimit-policy");
    }
  }

  private static void readLimits(String value, Optional<String> partition,
      @Nullable Pairing pairing, SignalSink sink) {
    List<Member> members;
    try {
      members = StructuredFields.parseList(value);
    } catch (StructuredFieldException e) {
      sink.warn("ratelimit", SignalWarning.Kind.MALFORMED,
          "not a structured-field List (" + e.getMessage() + "): " + FieldValues.quote(value));
      return;
    }
    for (int i = 0; i < members.size(); i++) {
      if (!(members.get(i) instanceof Item item)) {
        sink.warn("ratelimit", SignalWarning.Kind.MALFORMED, "inner list ignored: "
            + sf(members.get(i)));
        continue;
      }
      String name = name(item.value());
      if (name == null) {
        sink.warn("ratelimit", SignalWarning.Kind.MALFORMED,
            "policy name is not a String: " + sf(item.value()));
        continue;
      }
      Parameters params = item.parameters();
      // -11's names first, then the proposal's (a = available, w = effective window).
      String rName = params.get("r") == null && params.get("a") != null ? "a" : "r";
      String tName = params.get("t") == null && params.get("w") != null ? "w" : "t";
      BareItem r = params.get(rName);
      BareItem t = params.get(tName);
      // An item with t but no r (draft -10's own "quota;t=1") still says when the quota
      // resets: kept as a reset without a count.
      long remaining = r == null && t != null ? -3
          : nonNegative("ratelimit", name, rName, r, true, sink);
      Optional<Duration> reset = Optional.empty();
      if (t != null) {
        long seconds = nonNegative("ratelimit", name, tName, t, false, sink);
        if (seconds >= 0) {
          reset = Durations.ofSeconds(seconds);
        }
      }
      BareItem c = params.get("c");
      if (c != null) {
        long cost = nonNegative("ratelimit", name, "c", c, false, sink);
        if (cost >= 0) {
          sink.cost(cost, "ratelimit");
        }
      }
      Optional<String> pk = partitionKey("ratelimit", name, params, sink);
      if (pk == null || remaining == -1) {
        continue; // every problem of the item was reported
      }
      if (pairing != null) {
        pk = pairing.pair(name, pk);
      }
      pk = pk.or(() -> partition);
      if (remaining == -3) {
        if (reset.isPresent()) {
          Fields.resetWithoutCount(sink, name, pk, reset.get(), "ratelimit", NAME,
              "r parameter");
        }
        continue;
      }
      sink.limit(new QuotaLimit(name, remaining, reset, pk, NAME), "ratelimit", "ratelimit");
    }
  }

  /** Returns a value as the field wrote it, shortened past 64 characters. */
  private static String sf(Object value) {
    String text = value.toString();
    return text.length() <= 64 ? text : text.substring(0, 64) + "... (" + text.length()
        + " chars)";
  }

  private static @Nullable String name(BareItem value) {
    if (value instanceof BareItem.StringItem s) {
      return s.value();
    }
    if (value instanceof BareItem.TokenItem t) {
      return t.value();
    }
    return null;
  }

  /**
   * Returns a non-negative Integer parameter; -1 (after a warning) if it is missing and
   * {@code required}, negative, or not an Integer; -2 if missing and optional.
   */
  private static long nonNegative(String field, String name, String key,
      @Nullable BareItem value, boolean required, SignalSink sink) {
    if (value == null) {
      if (required) {
        sink.warn(field, SignalWarning.Kind.MALFORMED, what(name, required) + "no " + key
            + " parameter");
        return -1;
      }
      return -2;
    }
    if (!(value instanceof BareItem.IntegerItem integer)) {
      sink.warn(field, SignalWarning.Kind.MALFORMED, what(name, required) + key
          + " is not an Integer: " + sf(value));
      return -1;
    }
    if (integer.value() < 0) {
      sink.warn(field, SignalWarning.Kind.DROPPED, what(name, required) + key + " is negative: "
          + integer.value());
      return -1;
    }
    return integer.value();
  }

  private static String what(String name, boolean required) {
    return "item " + FieldValues.quote(name) + (required ? " dropped: " : ": ");
  }

  /** Returns the base64 of {@code pk}, empty if absent, or null (after a warning) if invalid. */
  private static @Nullable Optional<String> partitionKey(String field, String name,
      Parameters params, SignalSink sink) {
    BareItem pk = params.get("pk");
    if (pk == null) {
      return Optional.empty();
    }
    if (pk instanceof BareItem.ByteSequenceItem bytes) {
      return Optional.of(Base64.getEncoder().encodeToString(bytes.value()));
    }
    sink.warn(field, SignalWarning.Kind.MALFORMED,
        "item " + FieldValues.quote(name) + " dropped: pk is not a Byte Sequence: "
            + sf(pk));
    return null;
  }

  /**
   * Holds a response's policies until its limits are read, so that a policy item and the limit
   * item of its name share the {@code pk} only one of them gives; passes every other report on.
   */
  private static final class Pairing extends ForwardingSink {
    private final List<QuotaPolicy> policies = new ArrayList<>(2);
    private final List<String> fields = new ArrayList<>(4);
    private @Nullable Map<String, String> limitKeys;

    Pairing(SignalSink sink) {
      super(sink);
    }

    /**
     * Returns the partition key of the limit item {@code name}: its own, noted for the policy
     * of its name, or else that policy's.
     */
    Optional<String> pair(String name, Optional<String> own) {
      if (own.isPresent()) {
        if (limitKeys == null) {
          limitKeys = new HashMap<>(4);
        }
        limitKeys.putIfAbsent(name, own.get());
        return own;
      }
      for (QuotaPolicy policy : policies) {
        if (policy.name().equals(name) && policy.partitionKey().isPresent()) {
          return policy.partitionKey();
        }
      }
      return own;
    }

    /** Reports the policies held, each without a {@code pk} taking its limit item's. */
    void flush() {
      for (int i = 0; i < policies.size(); i++) {
        QuotaPolicy policy = policies.get(i);
        String key = limitKeys == null || policy.partitionKey().isPresent() ? null
            : limitKeys.get(policy.name());
        if (key != null) {
          policy = new QuotaPolicy(policy.name(), policy.quota(), policy.unit(), policy.window(),
              Optional.of(key), policy.dialect());
        }
        sink.policy(policy, fields.get(2 * i), fields.get(2 * i + 1));
      }
    }

    @Override
    public void policy(QuotaPolicy policy) {
      policy(policy, "ratelimit-policy", "ratelimit-policy");
    }

    @Override
    public void policy(QuotaPolicy policy, String quotaField, String windowField) {
      policies.add(policy);
      fields.add(quotaField);
      fields.add(windowField);
    }
  }
}
