package dev.headway.internal.signal;

import dev.headway.HttpFields;
import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaUnit;
import dev.headway.dialect.DialectContext;
import dev.headway.dialect.FieldValues;
import dev.headway.dialect.ResetValues;
import dev.headway.dialect.SignalSink;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * The legacy {@code X-RateLimit-*} family and its relatives (express legacy mode, fastify, X /
 * Twitter's {@code x-rate-limit-*}, Okta, Vimeo, Envoy's X-prefixed draft-03 list, Kong's
 * per-window headers, Linear's named groups):
 *
 * <ul>
 *   <li>{@code X-RateLimit-Limit}, {@code -Remaining}, {@code -Reset}, {@code -Used} (and the
 *       same with {@code X-Rate-Limit-}): the policy and limit {@code "default"}; a limit with
 *       {@code -Used} but no {@code -Remaining} yields {@code limit - used} remaining;
 *   <li>{@code X-RateLimit-Limit-Minute} / {@code X-RateLimit-Remaining-Minute} (Kong; also
 *       Second, Hour, Day, Month = 30 days, Year = 365 days) and Kong's response-ratelimiting
 *       {@code X-RateLimit-Limit-Videos-Minute}: a policy named by the suffix ({@code "minute"},
 *       {@code "videos-minute"}) with that window;
 *   <li>{@code X-RateLimit-Requests-Limit} / {@code -Remaining} / {@code -Reset} (Linear): a
 *       policy named by the middle part ({@code "requests"});
 *   <li>{@code X-RateLimit-UserLimit} / {@code -UserRemaining} / {@code -UserReset} (hapi-rate-limit,
 *       also {@code -PathLimit} and {@code -UserPathLimit}): a policy named by the word before
 *       the kind ({@code "user"}).
 * </ul>
 *
 * <p>On a 429, a remaining count of {@code -1} is the count the refused request overdrew (hapi):
 * none left, not the "unknown" sentinel it is on a successful response.
 *
 * <p>Resets use the {@link ResetValues epoch-versus-delta rule} (GitHub and X send epoch
 * seconds, fastify a delta, Linear epoch milliseconds, Jira RFC 3339). A limit value that is a
 * list ({@code 1, 1;w=60;name="first"}, Envoy) is read like {@code RateLimit-Limit}.
 *
 * <p>The plain {@code "default"} group is left to the vendor dialect when a response carries
 * its marker: {@code x-ratelimit-resource} (GitHub), {@code x-ratelimit-bucket} or
 * {@code x-ratelimit-reset-after} (Discord), {@code ratelimit-reason},
 * {@code x-ratelimit-nearlimit} or {@code x-ratelimit-fillrate} (Atlassian),
 * {@code x-ratelimit-replenish-rate} or {@code x-ratelimit-burst-capacity} (Spring Cloud
 * Gateway). Stateless; one pass over the header names.
 */
final class XRateLimitDialect implements FieldFamilies.Filtered {
  static final String NAME = "x-ratelimit";

  private static final String[] KINDS = {"limit", "remaining", "reset", "used"};
  private static final int LIMIT = 0;
  private static final int REMAINING = 1;
  private static final int RESET = 2;
  private static final int USED = 3;

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public int fieldFamilies() {
    return FieldFamilies.X_RATELIMIT;
  }

  /** The header values of one policy group. */
  private static final class Group {
    final String name;
    final long windowSeconds;
    final String[] fields = new String[4];
    final String[] values = new String[4];

    Group(String name, long windowSeconds) {
      this.name = name;
      this.windowSeconds = windowSeconds;
    }
  }

  @Override
  public void read(DialectContext context, SignalSink sink) {
    HttpFields headers = context.headers();
    List<Group> groups = null;
    List<String> retryNames = null;
    for (String name : headers.names()) {
      int restStart;
      if (name.equals("x-ratelimit") || name.equals("x-rate-limit")) {
        // Zendesk's X-Rate-Limit: 700 (with X-Rate-Limit-Remaining): the bare name is the limit.
        if (groups == null) {
          groups = new ArrayList<>(2);
        }
        Group group = find(groups, QuotaPolicy.DEFAULT_NAME, -1);
        if (group != null && group.values[LIMIT] == null) {
          group.fields[LIMIT] = name;
          group.values[LIMIT] = headers.values(name).get(0);
        }
        continue;
      } else if (name.startsWith("retry-after-") && name.length() > 12
          && !name.equals("retry-after-ms")) {
        retryNames = retryNames == null ? new ArrayList<>(2) : retryNames;
        retryNames.add(name);
        continue;
      } else if (name.length() < 13 || name.charAt(0) != 'x') {
        continue;
      } else if (name.startsWith("x-ratelimit-")) {
        restStart = 12;
      } else if (name.startsWith("x-rate-limit-")) {
        restStart = 13;
      } else {
        continue;
      }
      for (int kind = 0; kind < KINDS.length; kind++) {
        String groupName = groupName(name, restStart, KINDS[kind]);
        if (groupName == null) {
          continue;
        }
        long window = groupName.equals(QuotaPolicy.DEFAULT_NAME) ? -1 : windowOf(groupName);
        if (groups == null) {
          groups = new ArrayList<>(2);
        }
        Group group = find(groups, groupName, window);
        if (group != null && group.values[kind] == null) {
          group.fields[kind] = name;
          group.values[kind] = headers.values(name).get(0);
        }
        break;
      }
    }
    if (groups == null) {
      return;
    }
    if (retryNames != null) {
      // Retry-After-<name> beside X-RateLimit-Remaining-<name>: when that named limit allows
      // requests again, i.e. its reset (when no reset field of its own says so).
      for (int i = 0; i < retryNames.size(); i++) {
        String name = retryNames.get(i);
        Group group = existing(groups, name.substring(12));
        if (group != null && group.values[RESET] == null) {
          group.fields[RESET] = name;
          group.values[RESET] = headers.values(name).get(0);
        }
      }
    }
    boolean yieldDefault = yieldsDefault(headers);
    for (int i = 0; i < groups.size(); i++) {
      Group group = groups.get(i);
      if (!(yieldDefault && group.name.equals(QuotaPolicy.DEFAULT_NAME))) {
        report(group, context, sink);
      }
    }
  }

  /**
   * Returns the group a header name {@code x-ratelimit-<rest>} belongs to for {@code kind}, or
   * null: {@code "default"} for {@code <kind>}; the suffix for {@code <kind>-<...window>}; the
   * prefix for {@code <name>-<kind>}.
   */
  private static @Nullable String groupName(String name, int restStart, String kind) {
    int restLength = name.length() - restStart;
    if (restLength == kind.length() && name.startsWith(kind, restStart)) {
      return QuotaPolicy.DEFAULT_NAME;
    }
    if (restLength > kind.length() + 1 && name.startsWith(kind, restStart)
        && name.charAt(restStart + kind.length()) == '-') {
      String suffix = name.substring(restStart + kind.length() + 1);
      // Any name: Kong's -Minute, Akamai's X-RateLimit-Remaining-Objects. Not Discord's
      // X-RateLimit-Reset-After (a delay of the default limit) nor Akamai's
      // X-RateLimit-Limit-Per-Second (a rate).
      // Nor OpenAI's -requests / -tokens names, which the openai dialect reads.
      return suffix.equals("after") || suffix.startsWith("per-") || suffix.endsWith("-after")
          || suffix.equals("requests") || suffix.contains("tokens") || suffix.contains("usage")
          ? null : suffix;
    }
    if (restLength > kind.length() + 1 && name.endsWith(kind)
        && name.charAt(name.length() - kind.length() - 1) == '-') {
      return name.substring(restStart, name.length() - kind.length() - 1);
    }
    if (restLength > kind.length() && name.endsWith(kind)) {
      // hapi-rate-limit's X-RateLimit-UserRemaining / -PathLimit: a word joined to the kind.
      // Not Atlassian's X-RateLimit-NearLimit (a flag).
      String word = name.substring(restStart, name.length() - kind.length());
      return letters(word) && !word.equals("near") ? word : null;
    }
    return null;
  }

  /**
   * Whether a remaining count is {@code -1} on a 429: the count the refused request overdrew
   * (hapi-rate-limit's {@code X-RateLimit-UserRemaining: -1}), read as none left. On other
   * responses {@code -1} stays the "unknown" sentinel (Spring Cloud Gateway, Azure OpenAI); other
   * negative counts stay dropped.
   */
  private static boolean overdrawn(String value) {
    return value.trim().equals("-1");
  }

  private static boolean letters(String word) {
    for (int i = 0; i < word.length(); i++) {
      char c = word.charAt(i);
      if (c < 'a' || c > 'z') {
        return false;
      }
    }
    return true;
  }

  private static @Nullable Group existing(List<Group> groups, String name) {
    for (int i = 0; i < groups.size(); i++) {
      if (groups.get(i).name.equals(name)) {
        return groups.get(i);
      }
    }
    return null;
  }

  /** Returns the window of a name ending in a window word, in seconds; -1 if none. */
  private static long windowOf(String groupName) {
    int dash = groupName.lastIndexOf('-');
    String word = dash < 0 ? groupName : groupName.substring(dash + 1);
    switch (word) {
      case "second": return 1;
      case "minute": return 60;
      case "hour": return 3_600;
      case "day": return 86_400;
      case "week": return 7 * 86_400;
      case "month": return 30 * 86_400;
      case "year": return 365 * 86_400;
      default: return -1;
    }
  }

  /** Returns the group named {@code name}, a new one, or null past {@code MAX_ITEMS} groups. */
  private static @Nullable Group find(List<Group> groups, String name, long window) {
    for (int i = 0; i < groups.size(); i++) {
      Group group = groups.get(i);
      if (group.name.equals(name)) {
        return group;
      }
    }
    if (groups.size() >= SignalCollector.MAX_ITEMS) {
      return null;
    }
    Group group = new Group(name, window);
    groups.add(group);
    return group;
  }

  private static boolean yieldsDefault(HttpFields headers) {
    return headers.contains("x-ratelimit-resource")
        || headers.contains("x-ratelimit-bucket")
        || headers.contains("x-ratelimit-reset-after")
        || headers.contains("ratelimit-reason")
        || headers.contains("x-ratelimit-nearlimit")
        || headers.contains("x-ratelimit-fillrate")
        || headers.contains("x-ratelimit-replenish-rate")
        || headers.contains("x-ratelimit-burst-capacity");
  }

  private static void report(Group group, DialectContext context, SignalSink sink) {
    OptionalLong limit = OptionalLong.empty();
    long window = group.windowSeconds;
    List<QuotaPolicyList.Member> extra = List.of();
    String limitValue = group.values[LIMIT];
    if (limitValue != null) {
      if (limitValue.indexOf(',') >= 0 || limitValue.indexOf(';') >= 0) {
        List<QuotaPolicyList.Member> members =
            QuotaPolicyList.parse(group.fields[LIMIT], limitValue, sink);
        if (!members.isEmpty()) {
          limit = OptionalLong.of(members.get(0).quota());
          if (members.get(0).windowSeconds() > 0) {
            window = members.get(0).windowSeconds();
          } else if (members.size() > 1 && members.get(1).quota() == limit.getAsLong()) {
            window = members.get(1).windowSeconds();
          }
          extra = members.subList(1, members.size());
        }
      } else {
        limit = FieldValues.count(group.fields[LIMIT], limitValue, sink);
      }
    }
    OptionalLong remaining = group.values[REMAINING] == null ? OptionalLong.empty()
        : context.status() == 429 && overdrawn(group.values[REMAINING]) ? OptionalLong.of(0)
        : FieldValues.count(group.fields[REMAINING],
            DraftPolliDialect.beforeParameters(group.values[REMAINING]), sink);
    if (remaining.isEmpty() && limit.isPresent() && group.values[USED] != null) {
      OptionalLong used = FieldValues.count(group.fields[USED], group.values[USED], sink);
      if (used.isPresent()) {
        remaining = OptionalLong.of(Math.max(0, limit.getAsLong() - used.getAsLong()));
      }
    }
    Optional<Duration> reset = Optional.empty();
    if (group.values[RESET] != null) {
      String resetField = group.fields[RESET];
      reset = resetField.startsWith("retry-after-")
          ? ResetValues.delayOrDate(resetField, group.values[RESET], context, sink)
          : ResetValues.reset(resetField, group.values[RESET], context, sink,
              window > 0 ? Duration.ofSeconds(window) : ResetValues.LONGEST_RESET);
    }
    if (limit.isPresent()) {
      sink.policy(new QuotaPolicy(group.name, limit.getAsLong(), QuotaUnit.REQUESTS,
          window > 0 ? Durations.ofSeconds(window) : Optional.empty(),
          Optional.empty(), NAME), group.fields[LIMIT], group.fields[LIMIT]);
    }
    if (remaining.isPresent()) {
      String remainingField = group.fields[REMAINING] != null ? group.fields[REMAINING]
          : group.fields[USED];
      sink.limit(new QuotaLimit(group.name, remaining.getAsLong(), reset, Optional.empty(), NAME),
          remainingField, group.fields[RESET] != null ? group.fields[RESET] : remainingField);
    } else if (reset.isPresent() && group.values[REMAINING] == null) {
      Fields.resetWithoutCount(sink, group.name, Optional.empty(), reset.get(),
          group.fields[RESET], NAME, "remaining count");
    }
    for (int i = 0; i < extra.size(); i++) {
      QuotaPolicyList.Member member = extra.get(i);
      if (member.windowSeconds() > 0) {
        String name = member.name() != null ? member.name()
            : member.quota() + ";w=" + member.windowSeconds();
        sink.policy(new QuotaPolicy(name, member.quota(), QuotaUnit.REQUESTS,
            Durations.ofSeconds(member.windowSeconds()), Optional.empty(), NAME), member.field(),
            member.field());
      }
    }
  }
}
