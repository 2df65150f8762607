package dev.headway.cli;

import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaReset;
import dev.headway.RateLimitSignal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Writes an {@link Explanation} as a short human-readable table: the same values as
 * {@link JsonFormat}, absent ones as {@code -}, seconds suffixed with {@code s}. Text from the
 * server goes through {@link Printable}.
 *
 * <p>Thread-safe.
 */
final class TextFormat {
  private static final String ABSENT = "-";

  private TextFormat() {}

  /** Returns the text, ending with a newline. */
  static String write(Explanation explanation) {
    RateLimitSignal signal = explanation.signal();
    Explanation.Effective effective = explanation.effective();
    List<String[]> summary = new ArrayList<>();
    summary.add(row("status", Integer.toString(signal.status())));
    summary.add(row("dialects",
        signal.dialects().isEmpty() ? "none" : String.join(", ", signal.dialects())));
    summary.add(row("retry after", seconds(explanation.retryAfter())));
    // A throttled response with no figure (a bare 429) is no reason to go "now": unknown.
    summary.add(row("next", explanation.nextRequest()
        .map(d -> "in " + Seconds.text(d) + " s").orElse(signal.throttled() ? ABSENT : "now")));
    summary.add(row("effective", effective(effective)));
    signal.shouldRetry().ifPresent(retry -> summary.add(row("should retry",
        retry ? "yes (the server says)" : "no (the server says)")));
    signal.cost().ifPresent(cost -> summary.add(row("cost", Long.toString(cost))));
    summary.add(row("action", explanation.action()));
    StringBuilder out = new StringBuilder();
    table(out, summary);

    if (!signal.policies().isEmpty()) {
      List<String[]> rows = new ArrayList<>();
      rows.add(row("POLICY", "QUOTA", "UNIT", "WINDOW", "PARTITION"));
      for (QuotaPolicy policy : signal.policies()) {
        rows.add(row(policy.name(), Long.toString(policy.quota()), policy.unit().token(),
            seconds(policy.window()), policy.partitionKey().orElse(ABSENT)));
      }
      out.append('\n');
      table(out, rows);
    }
    if (!signal.limits().isEmpty()) {
      List<String[]> rows = new ArrayList<>();
      rows.add(row("LIMIT", "REMAINING", "RESET", "PARTITION"));
      for (QuotaLimit limit : signal.limits()) {
        rows.add(row(limit.policy(), Long.toString(limit.remaining()), seconds(limit.reset()),
            limit.partitionKey().orElse(ABSENT)));
      }
      out.append('\n');
      table(out, rows);
    }
    if (!signal.resets().isEmpty()) {
      List<String[]> rows = new ArrayList<>();
      rows.add(row("RESET WITHOUT COUNT", "RESET", "PARTITION"));
      for (QuotaReset reset : signal.resets()) {
        rows.add(row(reset.policy(), Seconds.text(reset.reset()) + " s",
            reset.partitionKey().orElse(ABSENT)));
      }
      out.append('\n');
      table(out, rows);
    }
    if (signal.isEmpty() && !signal.throttled()) {
      out.append("\nno rate-limit signal found\n");
    }
    if (!explanation.warnings().isEmpty()) {
      out.append("\nwarnings:\n");
      for (String warning : explanation.warnings()) {
        out.append("  ").append(Printable.of(warning)).append('\n');
      }
    }
    return out.toString();
  }

  private static String[] row(String... cells) {
    return cells;
  }

  /** Appends rows with columns padded to their widest cell; the last column is not padded. */
  private static void table(StringBuilder out, List<String[]> rows) {
    int columns = rows.get(0).length;
    int[] widths = new int[columns];
    for (String[] row : rows) {
      for (int i = 0; i < columns; i++) {
        row[i] = Printable.of(row[i]);
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < columns; i++) {
        line.append(row[i]);
        if (i < columns - 1) {
          line.append(" ".repeat(widths[i] - row[i].length() + 2));
        }
      }
      out.append(line.toString().stripTrailing()).append('\n');
    }
  }

  /** Returns e.g. {@code 50 of 100 remaining, reset in 30 s}, or {@code -} without a limit. */
  private static String effective(Explanation.Effective effective) {
    if (effective.remaining().isEmpty() && effective.limit().isEmpty()
        && effective.reset().isEmpty()) {
      return ABSENT;
    }
    StringBuilder text = new StringBuilder(number(effective.remaining()));
    if (effective.limit().isPresent()) {
      text.append(" of ").append(number(effective.limit()));
    }
    text.append(" remaining");
    effective.reset().ifPresent(reset -> text.append(", reset in ").append(Seconds.text(reset))
        .append(" s"));
    return text.toString();
  }

  private static String seconds(Optional<Duration> value) {
    return value.map(d -> Seconds.text(d) + " s").orElse(ABSENT);
  }

  private static String number(OptionalLong value) {
    return value.isPresent() ? Long.toString(value.getAsLong()) : ABSENT;
  }
}
