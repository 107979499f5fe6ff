package io.paysync.http;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Bytes read as UTF-8 only when they are UTF-8: the text re-encodes to exactly the bytes received, so what was signed
 * is what is read, and two different bodies never share one text.
 */
public final class StrictUtf8 {

    private StrictUtf8() {}

    /**
     * The text, or null when the bytes are not UTF-8. String's own decoder puts U+FFFD in place of every byte
     * sequence that is not UTF-8, so a result without U+FFFD is the strict decoding, made without a decoder and its
     * buffer per request (the callback's hot path). Only bytes that hold U+FFFD, sent or put there, are decoded
     * again strictly.
     */
    public static String decode(byte[] bytes) {
        String decoded = new String(bytes, StandardCharsets.UTF_8);
        if (decoded.indexOf('\uFFFD') < 0) {
            return decoded;
        }
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
