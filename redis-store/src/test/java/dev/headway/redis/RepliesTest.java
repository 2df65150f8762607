package dev.headway.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.store.QuotaKey;
import dev.headway.store.SharedQuota;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The store's boundary: whatever a reply carries (the script caps what it finds in Redis, but a
 * reply is read as warily as a header), the pacer is told instants within the caps a server's
 * own values get, never one whose distance from now overflows nanoseconds.
 */
class RepliesTest {
  private static final QuotaKey KEY = new QuotaKey("https://api.example.com:443", "default");
  private static final Instant NOW = Instant.parse("2026-11-28T12:00:00Z");
  private static final String YEAR_9999 = "253402300799999";
  private static final long DAY = Duration.ofDays(1).toMillis();

  private static List<Object> reply(String... fields) {
    return new ArrayList<>(Arrays.asList((Object[]) fields));
  }

  private static String ms(long offset) {
    return Long.toString(NOW.toEpochMilli() + offset);
  }

  @Test
  void holdsResetsAndLeaseEndsPastTheirCapsAreCappedAndReported() {
    List<String> nonsense = new ArrayList<>();
    Replies.Reply r = Replies.parse(KEY, reply("1", "0", ms(0), YEAR_9999, "100", "", "0",
        YEAR_9999, "", "", "", "1", "0", YEAR_9999, ""), NOW, nonsense::add);
    SharedQuota state = r.state();
    assertThat(state.holdUntil()).contains(NOW.plusMillis(DAY));
    assertThat(state.count().orElseThrow().resetAt()).contains(NOW.plusMillis(DAY));
    assertThat(r.validUntil()).isEqualTo(NOW.plusMillis(DAY));
    assertThat(nonsense).hasSize(3);
  }

  @Test
  void aResetOneWindowAheadIsBelievedAndAHoldWithinTheClockSkewIsCappedSilently() {
    List<String> nonsense = new ArrayList<>();
    long week = Duration.ofDays(7).toMillis();
    Replies.Reply r = Replies.parse(KEY, reply("1", "5", ms(0), ms(week), "100", Long.toString(week),
        "0", ms(DAY + 30_000), "", "", "", "1", "0", ms(1000), ""), NOW, nonsense::add);
    assertThat(r.state().count().orElseThrow().resetAt()).contains(NOW.plusMillis(week));
    assertThat(r.state().holdUntil()).contains(NOW.plusMillis(DAY));
    assertThat(nonsense).isEmpty();
  }

  @Test
  void ratesAndCountsFarFromNowAreDropped() {
    for (String learned : List.of(YEAR_9999, "0", ms(-DAY), ms(120_000))) {
      List<String> nonsense = new ArrayList<>();
      SharedQuota state = Replies.parse(KEY, reply("1", "", "", "", "", "", "0", "", "10",
          "1000", learned, "1", "0", ms(0), ""), NOW, nonsense::add).state();
      assertThat(state.refillRate()).as("learned at %s", learned).isEmpty();
      assertThat(nonsense).hasSize(1);
    }
    for (String observed : List.of(YEAR_9999, "0", ms(120_000))) {
      SharedQuota state = Replies.parse(KEY, reply("1", "5", observed, "", "", "", "0", "", "",
          "", "", "1", "0", ms(0), ""), NOW, s -> {}).state();
      assertThat(state.count()).as("observed at %s", observed).isEmpty();
    }
    SharedQuota sane = Replies.parse(KEY, reply("1", "5", ms(-1000), "", "", "", "0", "", "10",
        "1000", ms(-1000), "1", "0", ms(0), ""), NOW, s -> {}).state();
    assertThat(sane.count()).isPresent();
    assertThat(Duration.between(sane.refillRate().orElseThrow().learnedAt(), NOW).toNanos())
        .isEqualTo(1_000_000_000L);
  }

  @Test
  void anExcerptOfWhatRedisHeldIsShortAndPrintable() {
    String raw = "a\u0000b\u001b[2J" + "z".repeat(5_000);
    String excerpt = Replies.excerpt(raw, 40);
    assertThat(excerpt).startsWith("a?b?[2Jzz").endsWith("...(5007 characters)");
    assertThat(excerpt.length()).isLessThan(70);
  }
}
