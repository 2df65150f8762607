package dev.headway.internal.signal;

import dev.headway.dialect.Dialect;
import java.util.List;

/**
 * The dialects every {@link dev.headway.SignalParser} tries by default, in order: the standard
 * fields first, then vendor dialects (which take precedence over the generic
 * {@code X-RateLimit-*} reading of the same values, since the first report of a policy wins),
 * then the generic family, then the retry delay.
 */
public final class BuiltInDialects {
  private static final List<Dialect> ALL = List.of(
      new IetfStructuredDialect(),
      new DraftPolliDialect(),
      new GitHubDialect(),
      new OpenAiDialect(),
      new AnthropicDialect(),
      new ShopifyDialect(),
      new DiscordDialect(),
      new AtlassianDialect(),
      new SpringCloudGatewayDialect(),
      new SalesforceDialect(),
      new AzureDialect(),
      new XRateLimitDialect(),
      new VendorListDialect(),
      new RetryAfterDialect(),
      new ShouldRetryDialect());

  private BuiltInDialects() {}

  /**
   * Returns the built-in dialects: {@code ietf-structured}, {@code draft-polli}, {@code github},
   * {@code openai}, {@code anthropic}, {@code shopify}, {@code discord}, {@code atlassian},
   * {@code spring-cloud-gateway}, {@code salesforce}, {@code azure}, {@code x-ratelimit},
   * {@code vendor-list}, {@code retry-after}, {@code should-retry}. Immutable; the dialects are stateless.
   */
  public static List<Dialect> all() {
    return ALL;
  }
}
