package dev.headway.benchmarks.sim;

import java.time.Instant;
import java.util.Locale;

/** A {@link ServerModel} (one quota for every request) that talks in one {@link HeaderStyle}. */
final class ModelServer implements SimServer {
  private final ServerModel model;
  private final HeaderStyle style;

  ModelServer(ServerModel model, HeaderStyle style) {
    this.model = model;
    this.style = style;
  }

  @Override
  public Reply handle(SimRequest request, long nowNanos, Instant wallNow) {
    Decision decision = model.admit(nowNanos);
    return new Reply(decision.allowed(),
        style.render(decision, model.quota(), model.windowNanos(), wallNow),
        () -> String.format(Locale.ROOT, "%s remaining=%d reset=%.3f retry=%.3f",
            decision.allowed() ? "200" : "429", decision.remaining(),
            decision.resetNanos() / 1e9, decision.retryAfterNanos() / 1e9));
  }

  @Override
  public long nextAdmission(SimRequest request, long nowNanos) {
    return model.nextAdmission(nowNanos);
  }

  @Override
  public long windowNanos() {
    return model.windowNanos();
  }
}
