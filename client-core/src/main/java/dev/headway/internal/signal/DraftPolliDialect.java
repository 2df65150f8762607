package dev.headway.internal.signal;

import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaUnit;
import dev.headway.SignalWarning;
import dev.headway.dialect.DialectContext;
import dev.headway.dialect.FieldValues;
import dev.headway.dialect.ResetValues;
import dev.headway.dialect.SignalSink;
import dev.headway.internal.sf.BareItem;
import dev.headway.internal.sf.Item;
import dev.headway.internal.sf.Member;
import dev.headway.internal.sf.StructuredFieldException;
import dev.headway.internal.sf.StructuredFields;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The earlier drafts' fields, still sent by Kong, express-rate-limit (draft-6 and draft-7
 * modes), fastify, SharePoint, GitLab, Docker Hub and many gateways:
 *
 * <ul>
 *   <li>draft-polli-02 .. ietf-03: {@code RateLimit-Limit: 10, 10;w=1, 1000;w=3600} (expiring
 *       limit, then informative quota policies), {@code RateLimit-Remaining},
 *       {@code RateLimit-Reset};
 *   <li>ietf-04 .. -06 (and express draft-6): the same with {@code RateLimit-Policy: 100;w=60};
 *   <li>ietf-07 (and express draft-7): {@code RateLimit: limit=100, remaining=50, reset=5} (an
 *       sf-dictionary) with {@code RateLimit-Policy: 100;w=60}.
 * </ul>
 *
 * <p>The expiring limit and the remaining count form the policy and limit named
 * {@code "default"}: the expiring limit is "the request-quota associated to the client in the
 * current time-window" (draft-polli-02 section 3.1), the number the remaining count is counted
 * against, so it is the {@code "default"} quota even when a quota policy advertises more. Its
 * window is the {@code w} of the expiring limit itself (Docker Hub's {@code 100;w=21600}), else
 * that of a quota policy with the same quota ({@code 100, 100;w=60}); otherwise it is unknown
 * (section 3.1: "inferred by the value of RateLimit-Reset" or out of band). A quota policy with
 * another quota is never taken as the expiring limit's window: in the drafts' "dynamic limits"
 * example ({@code RateLimit-Limit: 15, 100;w=60}, section 6.3) the server lowered this window's
 * limit to 15 and {@code 100;w=60} is the nominal policy that applies after the reset, so 15
 * per 60 s would describe neither. Quota policies other than the matched one are reported as
 * informative policies named as the server wrote them ({@code 100;w=60}, or Envoy's
 * {@code name}). {@code RateLimit-Reset} is read with the
 * {@link ResetValues epoch-versus-delta rule}: the drafts say delta seconds, but GitLab, Bluesky
 * and DigitalOcean send epoch seconds under the same name. Stateless.
 */
final class DraftPolliDialect implements FieldFamilies.Filtered {
  static final String NAME = "draft-polli";

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
    List<String> limitLines = context.headers().values("ratelimit-limit");
    // joined: no list per lookup for the two fields the current draft sends on every response.
    String policyValue = context.headers().joined("ratelimit-policy");
    String dictionaryValue = context.headers().joined("ratelimit");
    List<String> remainingLines = context.headers().values("ratelimit-remaining");
    List<String> resetLines = context.headers().values("ratelimit-reset");
    if (limitLines.isEmpty() && remainingLines.isEmpty() && resetLines.isEmpty()
        && dictionaryValue == null && policyValue == null) {
      return;
    }

    OptionalLong limit = OptionalLong.empty();
    String limitField = "ratelimit-limit";
    long limitWindow = -1;
    OptionalLong remaining = OptionalLong.empty();
    String remainingField = "ratelimit-remaining";
    Optional<Duration> reset = Optional.empty();
    String resetField = "ratelimit-reset";
    List<QuotaPolicyList.Member> quotaPolicies = List.of();

    if (!limitLines.isEmpty()) {
      List<QuotaPolicyList.Member> members =
          QuotaPolicyList.parse("ratelimit-limit", IetfStructuredDialect.join(limitLines), sink);
      if (!members.isEmpty()) {
        limit = OptionalLong.of(members.get(0).quota());
        limitWindow = members.get(0).windowSeconds();
        quotaPolicies = members.subList(1, members.size());
      }
    }
    if (policyValue != null) {
      // The structured reader reports what is not a quota policy of the older drafts.
      List<QuotaPolicyList.Member> members = QuotaPolicyList.parse("ratelimit-policy",
          policyValue, true, sink);
      if (!members.isEmpty()) {
        if (quotaPolicies.isEmpty()) {
          quotaPolicies = members;
        } else {
          List<QuotaPolicyList.Member> all = new ArrayList<>(quotaPolicies);
          all.addAll(members);
          quotaPolicies = all;
        }
      }
    }
    if (!remainingLines.isEmpty()) {
      remaining = FieldValues.count("ratelimit-remaining", beforeParameters(remainingLines.get(0)),
          sink);
    }
    if (!resetLines.isEmpty()) {
      reset = ResetValues.reset("ratelimit-reset", beforeParameters(resetLines.get(0)), context,
          sink);
    }
    if (dictionaryValue != null) {
      String value = dictionaryValue;
      if (IetfStructuredDialect.isDictionaryShaped(value)) {
        Map<String, Member> dictionary = dictionary(value, sink);
        OptionalLong l = integer(dictionary, "limit", sink);
        if (l.isPresent()) {
          limit = l;
          limitField = "ratelimit";
          limitWindow = -1;
        }
        OptionalLong r = integer(dictionary, "remaining", sink);
        if (r.isPresent()) {
          remaining = r;
          remainingField = "ratelimit";
        }
        OptionalLong t = integer(dictionary, "reset", sink);
        if (t.isPresent()) {
          reset = Durations.ofSeconds(t.getAsLong());
          resetField = "ratelimit";
        }
      }
    }

    long window = limitWindow;
    String windowField = limitField;
    QuotaPolicyList.Member matched = null;
    if (window < 0 && limit.isPresent()) {
      for (int i = 0; i < quotaPolicies.size(); i++) {
        QuotaPolicyList.Member member = quotaPolicies.get(i);
        if (member.quota() == limit.getAsLong() && member.windowSeconds() > 0) {
          matched = member;
          window = member.windowSeconds();
          windowField = member.field();
          break;
        }
      }
    }
    if (limit.isPresent()) {
      sink.policy(new QuotaPolicy(QuotaPolicy.DEFAULT_NAME, limit.getAsLong(), QuotaUnit.REQUESTS,
          window > 0 ? Durations.ofSeconds(window) : Optional.empty(),
          Optional.empty(), NAME), limitField, windowField);
    }
    if (remaining.isPresent()) {
      sink.limit(new QuotaLimit(QuotaPolicy.DEFAULT_NAME, remaining.getAsLong(), reset,
          Optional.empty(), NAME), remainingField, reset.isPresent() ? resetField : remainingField);
    } else if (reset.isPresent() && remainingLines.isEmpty()) {
      Fields.resetWithoutCount(sink, QuotaPolicy.DEFAULT_NAME, Optional.empty(), reset.get(),
          resetField, NAME, resetField.equals("ratelimit") ? "remaining member"
              : "ratelimit-remaining");
    }
    for (int i = 0; i < quotaPolicies.size(); i++) {
      QuotaPolicyList.Member member = quotaPolicies.get(i);
      if (member == matched || member.windowSeconds() <= 0) {
        continue;
      }
      String name = member.name() != null ? member.name()
          : member.quota() + ";w=" + member.windowSeconds();
      sink.policy(new QuotaPolicy(name, member.quota(), QuotaUnit.REQUESTS,
          Durations.ofSeconds(member.windowSeconds()), Optional.empty(), NAME), member.field(),
          member.field());
    }
  }

  /** Returns the value before its first {@code ;} (Docker Hub's {@code 76;w=21600}). */
  static String beforeParameters(String value) {
    int semicolon = value.indexOf(';');
    return semicolon < 0 ? value : value.substring(0, semicolon);
  }

  private static Map<String, Member> dictionary(String value, SignalSink sink) {
    try {
      return StructuredFields.parseDictionary(value);
    } catch (StructuredFieldException e) {
      sink.warn("ratelimit", SignalWarning.Kind.MALFORMED,
          "not a structured-field Dictionary (" + e.getMessage() + "): "
              + FieldValues.quote(value));
      return Map.of();
    }
  }

  private static OptionalLong integer(Map<String, Member> dictionary, String key,
      SignalSink sink) {
    Member member = dictionary.get(key);
    if (member == null) {
      return OptionalLong.empty();
    }
    if (member instanceof Item item && item.value() instanceof BareItem.IntegerItem integer) {
      if (integer.value() >= 0) {
        return OptionalLong.of(integer.value());
      }
      sink.warn("ratelimit", SignalWarning.Kind.DROPPED, key + " is negative: " + integer.value());
      return OptionalLong.empty();
    }
    sink.warn("ratelimit", SignalWarning.Kind.MALFORMED, key + " is not an Integer: " + member);
    return OptionalLong.empty();
  }
}
