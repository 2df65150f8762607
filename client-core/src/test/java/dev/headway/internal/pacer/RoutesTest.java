package dev.headway.internal.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import org.junit.jupiter.api.Test;

class RoutesTest {
  static URI uri(String path) {
    return URI.create("https://api.example.com" + path);
  }

  @Test
  void idsAreCollapsedAndNamesAndVersionsKept() {
    assertThat(Routes.key("GET", uri("/repos/octo3/hello2/issues/17"), null))
        .isEqualTo("GET /repos/{x}/{x}/issues/{n}");
    assertThat(Routes.key("GET", uri("/v1/users/octocat"), null))
        .isEqualTo("GET /v1/users/octocat");
    assertThat(Routes.key("PATCH", uri("/guilds/559120/members/1234?x=1"), null))
        .isEqualTo("PATCH /guilds/{n}/members/{n}");
    assertThat(Routes.key("GET", uri("/items/3f2a9c1e-7b44-4c55-9d7e-1a2b3c4d5e6f"), null))
        .isEqualTo("GET /items/{x}");
    assertThat(Routes.key("GET", uri(""), null)).isEqualTo("GET /");
    assertThat(Routes.key("POST", uri("/v1/chat"), "model-a"))
        .isEqualTo("POST /v1/chat [model-a]");
  }

  @Test
  void theHashIsTheShapes() {
    long h = Routes.hash("GET", uri("/repos/a1/b2/issues/1"), null);
    assertThat(Routes.hash("GET", uri("/repos/c3/d4/issues/99"), null)).isEqualTo(h);
    assertThat(Routes.hash("GET", uri("//repos/c3/d4/issues/99/"), null)).isEqualTo(h);
    assertThat(Routes.hash("POST", uri("/repos/a1/b2/issues/1"), null)).isNotEqualTo(h);
    assertThat(Routes.hash("GET", uri("/repos/a1/b2/pulls/1"), null)).isNotEqualTo(h);
    assertThat(Routes.hash("GET", uri("/repos/a1/b2/issues/1"), "m")).isNotEqualTo(h);
    // {n} and {x} differ, and neither is the literal text "{n}".
    assertThat(Routes.hash("GET", uri("/a/1"), null))
        .isNotEqualTo(Routes.hash("GET", uri("/a/x1"), null));
  }

  @Test
  void declaredPatternsMatchInPlace() {
    DeclaredScope scope = DeclaredScope.of("api.example.com", "GET /repos/{o}/*/**", "core");
    assertThat(scope.partition()).isEqualTo("https://api.example.com:443");
    assertThat(scope.matches("GET", "/repos/o/r")).isTrue();
    assertThat(scope.matches("GET", "/repos/o/r/issues/1")).isTrue();
    assertThat(scope.matches("GET", "/repos/o")).isFalse();
    assertThat(scope.matches("POST", "/repos/o/r")).isFalse();
    DeclaredScope exact = DeclaredScope.of("h.example", "/search", "search");
    assertThat(exact.matches("POST", "/search")).isTrue();
    assertThat(exact.matches("GET", "/search/x")).isFalse();
    assertThat(exact.matches("GET", "/searchx")).isFalse();
  }
}
