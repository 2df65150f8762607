package dev.headway.cli;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.regex.Pattern;

/** Parses the {@code --now} values the command accepts. */
final class Times {
  private static final Pattern EPOCH_SECONDS = Pattern.compile("-?\\d+(\\.\\d{1,9})?");

  private Times() {}

  /**
   * Parses a {@code --now} value: epoch seconds (decimals allowed, {@code 1700000000},
   * {@code 1700000000.5}) or an RFC 3339 date-time ({@code 2025-01-01T00:00:00Z},
   * {@code 2025-01-01 01:00:00+01:00}).
   *
   * @throws CliException if it is neither
   */
  static Instant parseNow(String value) throws CliException {
    try {
      if (EPOCH_SECONDS.matcher(value).matches()) {
        BigDecimal seconds = new BigDecimal(value);
        long whole = seconds.setScale(0, RoundingMode.FLOOR).longValueExact();
        long nanos = seconds.subtract(BigDecimal.valueOf(whole)).movePointRight(9).longValueExact();
        return Instant.ofEpochSecond(whole, nanos);
      }
      String iso = value.length() > 10 && (value.charAt(10) == ' ' || value.charAt(10) == 't')
          ? value.substring(0, 10) + 'T' + value.substring(11)
          : value;
      return OffsetDateTime.parse(iso.toUpperCase(Locale.ROOT),
          DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
    } catch (ArithmeticException | DateTimeException e) {
      throw new CliException("--now must be epoch seconds or an RFC 3339 date-time such as"
          + " 2025-01-01T00:00:00Z but was '" + Printable.of(value) + "'");
    }
  }
}
