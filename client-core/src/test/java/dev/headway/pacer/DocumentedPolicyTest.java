package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaUnit;
import dev.headway.RequestInfo;
import dev.headway.SignalParser;
import dev.headway.dialect.Dialect;
import dev.headway.dialect.DialectContext;
import dev.headway.dialect.SignalSink;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A dialect that documents which of its policies governs which path ({@link
 * Dialect#documentedPolicy}) scopes a route before any of its responses was seen.
 */
class DocumentedPolicyTest {
  static final String HOST = "https://api.example.com";
  final VirtualClock clock = VirtualClock.create();

  /** {@code Acme-Bucket: <name> <remaining>}: one bucket of 100 a minute per response. */
  static class Acme implements Dialect {
    @Override
    public String name() {
      return "acme";
    }

    @Override
    public void read(DialectContext context, SignalSink sink) {
      context.headers().firstValue("Acme-Bucket").ifPresent(value -> {
        String[] parts = value.trim().split(" ");
        sink.policy(new QuotaPolicy(parts[0], 100, QuotaUnit.REQUESTS,
            Optional.of(Duration.ofMinutes(1)), Optional.empty(), name()));
        sink.limit(new QuotaLimit(parts[0], Long.parseLong(parts[1]),
            Optional.of(Duration.ofMinutes(1)), Optional.empty(), name()));
      });
    }
  }

  /** Acme, documenting that {@code /reads/...} spends bucket {@code reads}, all else writes. */
  static final class DocumentedAcme extends Acme {
    @Override
    public Optional<String> documentedPolicy(URI requestUri) {
      return Optional.of(requestUri.getPath().startsWith("/reads/") ? "reads" : "writes");
    }
  }

  private Pacer pacer(Dialect dialect) {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(1)
        .signalParser(SignalParser.builder().addDialect(dialect).build()).build();
  }

  private static RequestInfo get(String path) {
    return RequestInfo.get(URI.create(HOST + path));
  }

  /** Whether a read, on a route never seen, may go now after the writes bucket was spent. */
  private boolean aNewReadGoesAfterWritesAreSpent(Dialect dialect) {
    Pacer pacer = pacer(dialect);
    Permit write = pacer.tryAcquire(get("/writes/1")).orElseThrow();
    write.complete(200, HttpFields.of("Acme-Bucket", "writes 0"), null);
    return pacer.tryAcquire(get("/reads/1")).isPresent();
  }

  @Test
  void aRouteNeverSeenIsGovernedOnlyByThePolicyItsDialectDocumentsForIt() {
    assertThat(aNewReadGoesAfterWritesAreSpent(new DocumentedAcme()))
        .as("the dialect says reads do not spend writes").isTrue();
    assertThat(aNewReadGoesAfterWritesAreSpent(new Acme()))
        .as("undocumented: every policy governs a route never seen").isFalse();
  }

  @Test
  void aDialectWhoseHookThrowsIsJudgedAsIfItDocumentedNothing() {
    Acme throwsForReads = new Acme() {
      @Override
      public Optional<String> documentedPolicy(URI requestUri) {
        if (requestUri.getPath().startsWith("/reads/")) {
          throw new IllegalStateException("a bug in the user's dialect");
        }
        return Optional.of("writes");
      }
    };
    assertThat(aNewReadGoesAfterWritesAreSpent(throwsForReads))
        .as("as undocumented: every policy governs a route never seen").isFalse();
  }

  @Test
  void gitHubDocumentsItsResourcesPerPath() {
    Dialect github = SignalParser.create().dialects().stream()
        .filter(d -> d.name().equals("github")).findFirst().orElseThrow();
    assertThat(github.documentedPolicy(URI.create("https://api.github.com/search/code")))
        .contains("code_search");
    assertThat(github.documentedPolicy(URI.create("https://api.github.com/search/issues")))
        .contains("search");
    assertThat(github.documentedPolicy(URI.create("https://api.github.com/graphql")))
        .contains("graphql");
    assertThat(github.documentedPolicy(URI.create("https://api.github.com/repos/o/r")))
        .contains("core");
  }

  @Test
  void aDialectThatDocumentsNothingAnswersEmpty() {
    assertThat(new Acme().documentedPolicy(URI.create(HOST + "/reads/1"))).isEmpty();
  }
}
