package io.paysync.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paysync.config.InvalidSettingsException;
import io.paysync.config.Settings;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;

/** The credentials each audience presents, parsed from the settings and checked as the gate checks them. */
class AudiencesTest {

    private static final String SHOP_A = "shop-token-aaaaaaaaaaaaaaaa";
    private static final String SHOP_B = "shop-token-bbbbbbbbbbbbbbbb";
    private static final String OPERATOR = "operator-token-cccccccccccc";

    @Test
    void should_accept_every_token_of_a_rotation_and_nothing_else() {
        List<String> problems = new ArrayList<>();
        Tokens tokens = Tokens.parse("k", " " + SHOP_A + " ,\t" + SHOP_B + " ", Tokens.MIN_LENGTH, problems);
        assertThat(problems).isEmpty();
        assertThat(tokens.accepts(SHOP_A)).isTrue();
        assertThat(tokens.accepts(SHOP_B)).isTrue();
        for (String wrong :
                new String[] {null, "", SHOP_A + " ", SHOP_A.substring(1), SHOP_A + SHOP_B, SHOP_A.toUpperCase()}) {
            assertThat(tokens.accepts(wrong)).as("'%s'", wrong).isFalse();
        }
        assertThat(Tokens.none().accepts("")).isFalse();
    }

    @Test
    void should_refuse_short_or_non_ascii_tokens_without_quoting_them() {
        List<String> problems = new ArrayList<>();
        Tokens.parse(
                "paysync.api.token", "short-one " + SHOP_A + " tökén-with-umlauts-000", Tokens.MIN_LENGTH, problems);
        assertThat(problems)
                .hasSize(2)
                .allSatisfy(p -> assertThat(p)
                        .startsWith("paysync.api.token")
                        .doesNotContain("short-one")
                        .doesNotContain("tökén"));
    }

    @Test
    void should_never_leave_the_orders_api_open_outside_dev_not_even_for_a_setting_of_separators_only() {
        assertThatThrownBy(() -> audiences("prod", Map.of(Settings.API_TOKEN, " , ,", Settings.ADMIN_TOKEN, OPERATOR)))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("holds no token");
        List<String> problems = new ArrayList<>();
        assertThat(Tokens.parse("k", ",", 1, problems).isEmpty()).isTrue();
        assertThat(problems).containsExactly("k holds no token (only separators)");
    }

    @Test
    void should_tell_operators_by_bearer_or_basic_and_shops_by_bearer_only() {
        Audiences audiences =
                audiences("prod", Map.of(Settings.API_TOKEN, SHOP_A + " " + SHOP_B, Settings.ADMIN_TOKEN, OPERATOR));
        assertThat(audiences.production()).isTrue();
        assertThat(audiences.ordersOpen()).isFalse();
        assertThat(audiences.isShop("Bearer " + SHOP_B)).isTrue();
        assertThat(audiences.isShop("bearer  " + SHOP_A))
                .as("scheme in any case, spaces around")
                .isTrue();
        assertThat(audiences.isShop(basic("operator", SHOP_A))).isFalse();
        assertThat(audiences.isShop("Bearer " + OPERATOR)).isFalse();

        assertThat(audiences.isOperator("Bearer " + OPERATOR)).isTrue();
        assertThat(audiences.isOperator(basic("operator", OPERATOR))).isTrue();
        assertThat(audiences.isOperator(basic("Operator", OPERATOR)))
                .as("user names are exact")
                .isFalse();
        assertThat(audiences.isOperator(basic("operator", OPERATOR + "x"))).isFalse();
        assertThat(audiences.isOperator(basic("operator", SHOP_A))).isFalse();
        assertThat(audiences.isOperator("Bearer " + SHOP_A)).isFalse();
        for (String malformed :
                new String[] {null, "", "Basic", "Basic !!!", "Basic " + b64("no-colon"), "Digest " + OPERATOR, OPERATOR
                }) {
            assertThat(audiences.isOperator(malformed)).as("'%s'", malformed).isFalse();
        }
    }

    @Test
    void should_leave_the_orders_api_open_only_in_dev_without_a_token() {
        assertThat(audiences("dev", Map.of(Settings.ADMIN_TOKEN, "dev-admin-token"))
                        .ordersOpen())
                .isTrue();
        Audiences dev = audiences("dev", Map.of(Settings.ADMIN_TOKEN, "dev-admin-token", Settings.API_TOKEN, SHOP_A));
        assertThat(dev.ordersOpen()).isFalse();
        assertThat(dev.production()).isFalse();
    }

    @Test
    void should_refuse_a_token_shared_by_the_shop_and_the_operators() {
        assertThatThrownBy(() -> audiences(
                        "prod", Map.of(Settings.API_TOKEN, SHOP_A + "," + OPERATOR, Settings.ADMIN_TOKEN, OPERATOR)))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("share a token")
                .hasMessageNotContaining(OPERATOR);
    }

    private static Audiences audiences(String profile, Map<String, String> settings) {
        DefaultCamelContext context = new DefaultCamelContext();
        settings.forEach((k, v) -> context.getPropertiesComponent().addInitialProperty(k, v));
        return Audiences.from(new Settings(context, profile));
    }

    private static String basic(String user, String password) {
        return "Basic " + b64(user + ":" + password);
    }

    private static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }
}
