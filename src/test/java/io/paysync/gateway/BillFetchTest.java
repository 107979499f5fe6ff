package io.paysync.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paysync.support.TestClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The kit's {@link BillFetch}: the day due by Paysync's clock, a day filed once, the download's host and its hash. */
class BillFetchTest {

    @TempDir
    Path folder;

    final DefaultCamelContext context = new DefaultCamelContext();

    BillFetch fetch(Instant now) {
        context.getRegistry().bind("paysyncClock", new TestClock(now));
        BillFetch fetch = new BillFetch();
        fetch.setCamelContext(context);
        fetch.setFrom("9:30");
        fetch.setFolder(folder.toString());
        fetch.setFileName("tradebill-{day}.csv");
        return fetch;
    }

    Exchange exchange(String body) {
        Exchange exchange = new DefaultExchange(context);
        exchange.getMessage().setBody(body == null ? null : body.getBytes(StandardCharsets.UTF_8));
        return exchange;
    }

    @Test
    void should_make_yesterday_due_in_shanghai_only_from_the_time_of_day() {
        // 09:29 and 09:30 in Shanghai on 2026-12-07 (UTC+8), still 2026-12-06 in UTC.
        assertThat(fetch(Instant.parse("2026-12-07T01:29:00Z")).dueDay()).isNull();
        assertThat(fetch(Instant.parse("2026-12-07T01:30:00Z")).dueDay()).isEqualTo("2026-12-06");
        // 00:30 in Shanghai on 2026-12-08 is 2026-12-07 in UTC: the day is Shanghai's, and 00:30 is before 09:30.
        assertThat(fetch(Instant.parse("2026-12-07T16:30:00Z")).dueDay()).isNull();
        assertThat(fetch(Instant.parse("2026-12-07T15:59:00Z")).dueDay()).isEqualTo("2026-12-06");
    }

    @Test
    void should_know_a_day_filed_in_the_folder_its_done_or_its_failed_folder() throws Exception {
        BillFetch fetch = fetch(Instant.parse("2026-12-07T03:00:00Z"));
        assertThat(fetch.fileName("2026-12-06")).isEqualTo("tradebill-2026-12-06.csv");
        assertThatThrownBy(() -> fetch.fileName("../x")).isInstanceOf(RuntimeException.class);
        assertThat(fetch.filed("tradebill-2026-12-06.csv")).isFalse();
        for (String where : new String[] {".", ".done", ".failed"}) {
            Path file = Files.createDirectories(folder.resolve(where)).resolve("tradebill-2026-12-0" + where.length());
            Files.writeString(file, "x");
            assertThat(fetch.filed(file.getFileName().toString())).as(where).isTrue();
        }
    }

    @Test
    void should_send_a_download_only_to_the_api_host_with_its_path_and_query() {
        BillFetch fetch = fetch(Instant.parse("2026-12-07T03:00:00Z"));
        Exchange exchange = exchange(null);
        fetch.sameOrigin(
                exchange,
                "https://api.mch.weixin.qq.com/v3/billdownload/file?token=6XIv5TUPto7pByrTQKhd6kwvyKLG2uY2wMMR8cNXqaA_Cv_isgaUtBzp4QtiozLO",
                "https://api.mch.weixin.qq.com");
        assertThat(exchange.getMessage().getHeader(Exchange.HTTP_PATH)).isEqualTo("/v3/billdownload/file");
        assertThat(exchange.getMessage().getHeader(Exchange.HTTP_QUERY))
                .isEqualTo("token=6XIv5TUPto7pByrTQKhd6kwvyKLG2uY2wMMR8cNXqaA_Cv_isgaUtBzp4QtiozLO");
        for (String elsewhere : new String[] {
            "https://evil.example/v3/billdownload/file?token=x",
            "http://api.mch.weixin.qq.com/v3/billdownload/file?token=x",
            "https://api.mch.weixin.qq.com:8443/v3/billdownload/file?token=x",
            "https://api.mch.weixin.qq.com.evil.example/v3/billdownload/file",
            "not a url"
        }) {
            assertThatThrownBy(() -> fetch.sameOrigin(exchange(null), elsewhere, "https://api.mch.weixin.qq.com"))
                    .as(elsewhere)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageNotContaining("evil");
        }
    }

    @Test
    void should_accept_only_the_sha1_named_and_a_zip() {
        BillFetch fetch = fetch(Instant.parse("2026-12-07T03:00:00Z"));
        String bill = "交易时间,商户订单号\r\n`2026-12-06 10:00:00,`A-1\r\n";
        fetch.checkDigest(exchange(bill), "SHA1", WechatPayStandIn.sha1(bill).toUpperCase());
        assertThatThrownBy(() -> fetch.checkDigest(exchange(bill + " "), "SHA1", WechatPayStandIn.sha1(bill)))
                .hasMessageContaining("does not have the SHA1");
        assertThatThrownBy(() -> fetch.checkDigest(exchange(bill), "MD5", WechatPayStandIn.sha1(bill)))
                .hasMessageContaining("hash_type");
        assertThatThrownBy(() -> fetch.checkDigest(exchange(bill), "SHA1", "not hex"))
                .hasMessageContaining("not hex");
        assertThatThrownBy(() -> fetch.requireZip(exchange("<html>busy</html>")))
                .hasMessageContaining("not a zip archive");
        fetch.requireZip(exchange("PK\u0003\u0004rest"));
    }
}
