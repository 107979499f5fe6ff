package io.paysync.config;

import java.util.List;

/** Paysync refuses to start; the message lists every problem, never a secret's value. */
public class InvalidSettingsException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final List<String> problems;

    public InvalidSettingsException(List<String> problems) {
        super("Paysync cannot start:\n  - " + String.join("\n  - ", problems));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }
}
