-- The gateway settlement files taken from the inbox: one row per file, by name and content, so that a file is
-- applied once whichever instance sees it and however often it is dropped again. While a file is applied its row is
-- the claim (owner, lease) and the checkpoint (rows committed, the report's counts so far), written in the same
-- transaction as each batch of transitions: a file interrupted by a crash resumes after its last committed batch.
CREATE TABLE settlement_files (
    id             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    file_name      VARCHAR(255)             NOT NULL,
    content_sha256 CHAR(64)                 NOT NULL,
    state          VARCHAR(16)              NOT NULL,
    owner          VARCHAR(128)             NOT NULL,
    lease_until    TIMESTAMP WITH TIME ZONE NOT NULL,
    rows_done      BIGINT                   NOT NULL DEFAULT 0,
    report         TEXT                     NOT NULL,
    taken_at       TIMESTAMP WITH TIME ZONE NOT NULL,
    finished_at    TIMESTAMP WITH TIME ZONE,
    CONSTRAINT uq_settlement_files UNIQUE (file_name, content_sha256),
    CONSTRAINT ck_settlement_files_state CHECK (state IN ('Applying', 'Done', 'Failed'))
);
