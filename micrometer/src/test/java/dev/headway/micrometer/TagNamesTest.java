package dev.headway.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The one-paragraph rule of the README, case by case. */
class TagNamesTest {
  @Test
  void anOriginIsShownAndAnythingMoreOnlyAsAHash() {
    assertThat(TagNames.hashedUnlessOrigin("https://api.example.com:443"))
        .isEqualTo("https://api.example.com:443");
    assertThat(TagNames.hashedUnlessOrigin("http://[::1]:8080")).isEqualTo("http://[::1]:8080");
    assertThat(TagNames.hashedUnlessOrigin("http://:80")).isEqualTo("http://:80");
    assertThat(TagNames.hashedUnlessOrigin("https://api.example.com:443/v1/search"))
        .matches("https://api\\.example\\.com:443#[0-9a-f]{8}");
    assertThat(TagNames.hashedUnlessOrigin("https://api.example.com:443#cred=3f2a9c0e1b7d4a55"))
        .matches("https://api\\.example\\.com:443#[0-9a-f]{8}");
    assertThat(TagNames.hashedUnlessOrigin("tenant-42")).matches("#[0-9a-f]{8}");
    // userinfo is not part of an origin: nothing before the '@' may show
    assertThat(TagNames.hashedUnlessOrigin("https://user:secret@host:443"))
        .matches("#[0-9a-f]{8}");
    // the same key, the same tag (dashboards survive a restart); another key, another tag
    assertThat(TagNames.hashedUnlessOrigin("tenant-42"))
        .isEqualTo(TagNames.hashedUnlessOrigin("tenant-42"))
        .isNotEqualTo(TagNames.hashedUnlessOrigin("tenant-43"));
  }

  @Test
  void aPkPartitionIsTaggedAsThePartitionItCameFrom() {
    assertThat(TagNames.base("https://api.example.com:443|pk=dXNlcjE="))
        .isEqualTo("https://api.example.com:443");
    assertThat(TagNames.base("https://api.example.com:443"))
        .isEqualTo("https://api.example.com:443");
  }

  @Test
  void aPolicyNameIsShownUnlessLongOrUnprintable() {
    assertThat(TagNames.policy("fixed")).isEqualTo("fixed");
    assertThat(TagNames.policy("core[gpt-4o]")).isEqualTo("core[gpt-4o]");
    assertThat(TagNames.policy("x".repeat(64))).isEqualTo("x".repeat(64));
    assertThat(TagNames.policy("x".repeat(65))).matches("x{40}#[0-9a-f]{8}");
    assertThat(TagNames.policy("per user\n")).matches("peruser#[0-9a-f]{8}");
    assertThat(TagNames.policy("")).matches("#[0-9a-f]{8}");
  }
}
