package dev.headway.okhttp.docs;

// docs/okhttp.md:retrofit:begin
import dev.headway.Pacer;
import dev.headway.okhttp.RateLimitInterceptor;
import java.io.IOException;
import java.net.URI;
import okhttp3.OkHttpClient;
import okhttp3.ResponseBody;
import retrofit2.Call;
import retrofit2.Retrofit;
import retrofit2.http.GET;
import retrofit2.http.Path;

public class RetrofitQuickStart {
  interface GitHub {
    @GET("repos/{owner}/{repo}")
    Call<ResponseBody> repo(@Path("owner") String owner, @Path("repo") String repo);
  }

  static String describe(String baseUrl) throws IOException {
    Pacer pacer = Pacer.create(); // share one pacer; ask it how much quota is left
    OkHttpClient client = new OkHttpClient.Builder()
        .addInterceptor(RateLimitInterceptor.create(pacer))
        .build();
    GitHub github = new Retrofit.Builder()
        .baseUrl(baseUrl)
        .client(client)
        .build()
        .create(GitHub.class);

    retrofit2.Response<ResponseBody> response = github.repo("square", "okhttp").execute();
    try (ResponseBody body = response.isSuccessful() ? response.body() : response.errorBody()) {
      return response.code() + " " + body.string()
          + " quota: " + pacer.quota(URI.create(baseUrl));
    }
  }
}
// docs/okhttp.md:retrofit:end
