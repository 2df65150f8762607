package dev.headway.benchmarks.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Servers with several quotas: each quota counts and refuses only what it governs. */
class ScopedServerTest {
  private static final long SECOND = 1_000_000_000L;
  private static final Instant WALL = Simulation.ALIGNED_EPOCH;
  private static final SimRequest CORE = SimRequest.of("GET", "/repos/o/r/issues/1");
  private static final SimRequest SEARCH = SimRequest.of("GET", "/search/issues?q=x");

  @Test
  void gitHubSearchQuotaRunsOutWhileCoreCallsGoOn() {
    GitHubServer server = new GitHubServer(0);
    for (int i = 0; i < 30; i++) {
      assertThat(server.handle(SEARCH, i, WALL).allowed()).isTrue();
    }

    SimServer.Reply search = server.handle(SEARCH, 100, WALL);
    SimServer.Reply core = server.handle(CORE, 101, WALL);

    assertThat(search.allowed()).isFalse();
    assertThat(search.headers().firstValue("x-ratelimit-resource")).hasValue("search");
    assertThat(search.headers().firstValue("x-ratelimit-remaining")).hasValue("0");
    assertThat(core.allowed()).isTrue();
    assertThat(core.headers().firstValue("x-ratelimit-resource")).hasValue("core");
    assertThat(core.headers().firstValue("x-ratelimit-limit")).hasValue("5000");
    assertThat(core.headers().firstValue("x-ratelimit-remaining")).hasValue("4999");
    assertThat(core.headers().firstValue("x-ratelimit-used")).hasValue("1");
    // The search window is a minute: a search is admitted again once it ends.
    assertThat(server.nextAdmission(SEARCH, 200)).isEqualTo(60 * SECOND);
    assertThat(server.handle(SEARCH, 60 * SECOND, WALL).allowed()).isTrue();
  }

  @Test
  void gitHubCoreQuotaRunsOutWhileSearchCallsGoOn() {
    GitHubServer server = new GitHubServer(0);
    for (int i = 0; i < 5000; i++) {
      assertThat(server.handle(CORE, i, WALL).allowed()).isTrue();
    }

    assertThat(server.handle(CORE, 10 * SECOND, WALL).allowed()).isFalse();
    assertThat(server.handle(SEARCH, 10 * SECOND, WALL).allowed()).isTrue();
    assertThat(server.nextAdmission(CORE, 10 * SECOND)).isEqualTo(3600 * SECOND);
    assertThat(server.quotaUse(3600 * SECOND)).extracting(SimServer.QuotaUse::name,
        SimServer.QuotaUse::admitted, SimServer.QuotaUse::throttled)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("core", 5000L, 1L),
            org.assertj.core.groups.Tuple.tuple("search", 1L, 0L));
  }

  @Test
  void discordBucketsCountTheirOwnRoutesAndTheGlobalLimitCountsAll() {
    DiscordServer server = new DiscordServer(0);
    SimRequest post = SimRequest.of("POST", DiscordServer.CHANNEL_MESSAGES);
    SimRequest get = SimRequest.of("GET", DiscordServer.CHANNEL_MESSAGES);
    SimRequest patch = SimRequest.of("PATCH", DiscordServer.MEMBERS + "42");
    long t = 0;
    // 5 POSTs in 5 s (global 3/s: spread them over seconds), then the POST bucket is empty.
    for (int i = 0; i < 5; i++) {
      SimServer.Reply reply = server.handle(post, t, WALL);
      assertThat(reply.allowed()).isTrue();
      assertThat(reply.headers().firstValue("X-RateLimit-Bucket")).hasValue("3c07");
      t += 900_000_000L;
    }
    SimServer.Reply sixth = server.handle(post, t, WALL);
    assertThat(sixth.allowed()).isFalse();
    assertThat(sixth.headers().firstValue("X-RateLimit-Scope")).hasValue("user");
    assertThat(sixth.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
    assertThat(sixth.headers().firstValue("Retry-After")).isPresent();
    // The GET route has its own bucket: still full.
    SimServer.Reply getReply = server.handle(get, t + 1, WALL);
    assertThat(getReply.allowed()).isTrue();
    assertThat(getReply.headers().firstValue("X-RateLimit-Bucket")).hasValue("8a1f");
    assertThat(getReply.headers().firstValue("X-RateLimit-Remaining")).hasValue("9");

    // The global limit: 3 per second over every route, whatever the buckets hold.
    long second = 10 * SECOND;
    assertThat(server.handle(get, second, WALL).allowed()).isTrue();
    assertThat(server.handle(patch, second + 1, WALL).allowed()).isTrue();
    assertThat(server.handle(get, second + 2, WALL).allowed()).isTrue();
    SimServer.Reply global = server.handle(patch, second + 3, WALL);
    assertThat(global.allowed()).isFalse();
    assertThat(global.headers().firstValue("X-RateLimit-Global")).hasValue("true");
    assertThat(global.headers().firstValue("X-RateLimit-Scope")).hasValue("global");
    assertThat(global.headers().contains("X-RateLimit-Bucket")).isFalse();
    assertThat(server.handle(patch, second + SECOND, WALL).allowed()).isTrue();
  }

  @Test
  void llmModelsHaveTheirOwnRequestAndTokenLimits() {
    LlmServer server = new LlmServer();
    SimRequest bigB = new SimRequest("POST", LlmServer.PATH, "model-b", 900);
    SimRequest a = new SimRequest("POST", LlmServer.PATH, "model-a", 900);
    // model-b: 6,000 tokens per minute: six requests of 900 fit, the seventh does not.
    for (int i = 0; i < 6; i++) {
      assertThat(server.handle(bigB, i, WALL).allowed()).isTrue();
    }
    SimServer.Reply refused = server.handle(bigB, 10, WALL);
    SimServer.Reply other = server.handle(a, 11, WALL);

    assertThat(refused.allowed()).isFalse();
    assertThat(refused.headers().firstValue("x-ratelimit-remaining-tokens")).hasValue("600");
    assertThat(refused.headers().firstValue("x-ratelimit-limit-tokens")).hasValue("6000");
    assertThat(refused.headers().firstValue("x-ratelimit-remaining-requests")).hasValue("24");
    // 300 more tokens refill at 100 per second: 3 s.
    assertThat(refused.headers().firstValue("retry-after-ms")).hasValue("3000");
    assertThat(refused.headers().firstValue("retry-after")).hasValue("3");
    assertThat(other.allowed()).isTrue();
    assertThat(other.headers().firstValue("x-ratelimit-limit-tokens")).hasValue("30000");
    assertThat(other.headers().firstValue("x-ratelimit-remaining-tokens")).hasValue("29100");
    assertThat(other.headers().firstValue("x-ratelimit-reset-tokens")).hasValue("1.8s");
    assertThat(server.nextAdmission(bigB, 10)).isBetween(3 * SECOND, 3 * SECOND + 10);
  }

  @Test
  void goDurationsAreFormattedAsGoDoes() {
    assertThat(LlmServer.goDuration(12_000_000L)).isEqualTo("12ms");
    assertThat(LlmServer.goDuration(SECOND)).isEqualTo("1s");
    assertThat(LlmServer.goDuration(360 * SECOND)).isEqualTo("6m0s");
    assertThat(LlmServer.goDuration(179_560_000_000L)).isEqualTo("2m59.56s");
    assertThat(LlmServer.goDuration(0)).isEqualTo("0s");
  }

  @Test
  void perfectClientNeverDrawsA429AndNoQuotaGivesMoreThanItsCapacity() {
    for (ScopedKind kind : ScopedKind.values()) {
      Scenario scenario = Scenario.of(kind).withDuration(java.time.Duration.ofSeconds(
          kind == ScopedKind.GITHUB ? 600 : 120));

      Result perfect = Simulation.run(scenario, new PerfectClient());

      assertThat(perfect.throttled()).as(kind.name()).isZero();
      assertThat(perfect.quotas()).as(kind.name()).isNotEmpty();
      for (SimServer.QuotaUse q : perfect.quotas()) {
        assertThat(q.units()).as(kind + " " + q.name()).isLessThanOrEqualTo(q.capacity());
        assertThat(q.units()).as(kind + " " + q.name()).isEqualTo(q.perfectUnits());
      }
    }
  }

  @Test
  void aFloodingClientNeverGetsMoreThanAnyQuotasCapacityAndEachRefusalIsChargedToOneQuota() {
    Scenario scenario = Scenario.of(ScopedKind.DISCORD).withDuration(
        java.time.Duration.ofSeconds(60));

    Result r = Simulation.run(scenario, new NoThrottleClient(3));

    List<SimServer.QuotaUse> quotas = r.quotas();
    assertThat(quotas).extracting(SimServer.QuotaUse::name)
        .containsExactly("global", "8a1f", "3c07", "e52b");
    long refusals = 0;
    for (SimServer.QuotaUse q : quotas) {
      assertThat(q.units()).as(q.name()).isLessThanOrEqualTo(q.capacity());
      refusals += q.throttled();
    }
    assertThat(refusals).isEqualTo(r.throttled());
    assertThat(quotas.get(0).throttled()).isPositive();
    assertThat(quotas.subList(1, 4)).anySatisfy(q -> assertThat(q.throttled()).isPositive());
    // The global limit counts every admitted request; each bucket only its route's.
    assertThat(quotas.get(0).units()).isEqualTo(r.admitted());
    assertThat(quotas.get(1).units() + quotas.get(2).units() + quotas.get(3).units())
        .isEqualTo(r.admitted());
  }

  @Test
  void everyClientFacesTheSameCallsInTheSameOrder() {
    Scenario scenario = Scenario.of(ScopedKind.GITHUB);
    Simulation a = Simulation.simulate(scenario.withDuration(java.time.Duration.ZERO),
        new PerfectClient(), null, null);
    var calls = a.workload(0, 3);
    var again = a.workload(0, 3);
    var other = a.workload(0, 4);
    for (int i = 0; i < 200; i++) {
      SimRequest next = calls.get();
      assertThat(again.get()).isEqualTo(next);
      other.get();
    }
    assertThat(Simulation.simulate(scenario.withDuration(java.time.Duration.ZERO),
        new PerfectClient(), null, null).workload(0, 3).get())
        .isEqualTo(a.workload(0, 3).get());
    // About one search call in a hundred.
    var mix = a.workload(1, 0);
    int searches = 0;
    for (int i = 0; i < 10_000; i++) {
      searches += GitHubServer.isSearch(mix.get()) ? 1 : 0;
    }
    assertThat(searches).isBetween(70, 130);
  }

  @Test
  void theLlmCostFunctionPricesTokenQuotasByTheRequestsTokens() {
    var info = new SimRequest("POST", LlmServer.PATH, "model-a", 456).toRequestInfo();
    var cost = ScopedKind.LLM.cost();

    assertThat(cost.cost(info, dev.headway.QuotaUnit.TOKENS)).isEqualTo(456);
    assertThat(cost.cost(info, dev.headway.QuotaUnit.REQUESTS)).isEqualTo(1);
    assertThat(info.headers().firstValue(SimRequest.MODEL_HEADER)).hasValue("model-a");
    assertThat(SimRequest.DEFAULT.toRequestInfo().headers()).isEqualTo(HttpFields.empty());
  }
}
