package io.paysync.http;

/**
 * A refused request: the HTTP status and the stable error code the API documents (openapi/paysync.yaml). The
 * message is for humans and never carries a secret, a signature or the raw body.
 */
public class ApiException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final String code;

    public ApiException(int status, String code, String message) {
        super(message, null, false, false);
        this.status = status;
        this.code = code;
    }

    public int status() {
        return status;
    }

    public String code() {
        return code;
    }

    public static ApiException malformed(String message) {
        return new ApiException(400, "malformed-request", message);
    }

    public static ApiException unknownOrder(String orderNumber) {
        return new ApiException(404, "unknown-order", "No order " + orderNumber);
    }
}
