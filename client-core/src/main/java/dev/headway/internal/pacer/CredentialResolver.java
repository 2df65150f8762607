package dev.headway.internal.pacer;

import dev.headway.PartitionKeyResolver;
import dev.headway.RequestInfo;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Optional;

/**
 * Origin plus a salted SHA-256 prefix of a credential header. The raw credential is hashed and
 * dropped; only 64 bits of the digest are kept in the key. Thread-safe.
 */
public final class CredentialResolver implements PartitionKeyResolver {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private final String headerName;
  private final byte[] salt = new byte[16];

  /** Creates a resolver for {@code headerName} with a fresh random salt. */
  public CredentialResolver(String headerName) {
    this.headerName = headerName;
    new SecureRandom().nextBytes(salt);
  }

  @Override
  public String resolve(RequestInfo request) {
    String origin = OriginResolver.INSTANCE.resolve(request);
    Optional<String> credential = request.headers().firstValue(headerName);
    if (credential.isEmpty()) {
      return origin;
    }
    MessageDigest digest;
    try {
      digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every Java platform", e);
    }
    digest.update(salt);
    byte[] hash = digest.digest(credential.get().getBytes(StandardCharsets.UTF_8));
    StringBuilder key = new StringBuilder(origin.length() + 22).append(origin).append("#cred=");
    for (int i = 0; i < 8; i++) {
      key.append(HEX[(hash[i] >> 4) & 0xf]).append(HEX[hash[i] & 0xf]);
    }
    return key.toString();
  }

  @Override
  public String toString() {
    return "originAndCredential(" + headerName + ")";
  }
}
