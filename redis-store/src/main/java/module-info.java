/**
 * Headway's Redis store: quota state shared by every instance of a fleet through Redis, so that
 * processes sharing one API key share what the server said.
 */
// Lettuce has no module-info (its automatic name is stable) and its RedisClient is part of this
// module's API.
@SuppressWarnings("requires-transitive-automatic")
module dev.headway.redis {
  requires transitive dev.headway.core;
  requires transitive lettuce.core;
  requires static transitive org.jspecify;

  exports dev.headway.redis;
}
