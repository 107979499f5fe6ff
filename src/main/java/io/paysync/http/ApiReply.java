package io.paysync.http;

/** A successful answer: status and a body that {@link Json} writes. */
public record ApiReply(int status, Object body) {

    public static ApiReply ok(Object body) {
        return new ApiReply(200, body);
    }
}
