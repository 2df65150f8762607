package consumer.boot;

import org.springframework.web.service.annotation.GetExchange;
import org.springframework.web.service.annotation.HttpExchange;

/** An HTTP interface client of the local API. */
@HttpExchange("/items")
public interface Items {
  @GetExchange
  String list();
}
