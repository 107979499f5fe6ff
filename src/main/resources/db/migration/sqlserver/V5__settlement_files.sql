-- The gateway settlement files taken from the inbox: one row per file, by name and content, so that a file is
-- applied once whichever instance sees it and however often it is dropped again. While a file is applied its row is
-- the claim (owner, lease) and the checkpoint (rows committed, the report's counts so far), written in the same
-- transaction as each batch of transitions: a file interrupted by a crash resumes after its last committed batch.
-- File names keep a binary collation, as order numbers do: two names that differ in case are two files.
CREATE TABLE settlement_files (
    id             BIGINT IDENTITY(1, 1) NOT NULL CONSTRAINT pk_settlement_files PRIMARY KEY,
    file_name      NVARCHAR(255) COLLATE Latin1_General_100_BIN2 NOT NULL,
    content_sha256 NCHAR(64)             NOT NULL,
    state          NVARCHAR(16)          NOT NULL,
    owner          NVARCHAR(128)         NOT NULL,
    lease_until    DATETIMEOFFSET(6)     NOT NULL,
    rows_done      BIGINT                NOT NULL CONSTRAINT df_settlement_files_rows_done DEFAULT 0,
    report         NVARCHAR(MAX)         NOT NULL,
    taken_at       DATETIMEOFFSET(6)     NOT NULL,
    finished_at    DATETIMEOFFSET(6)     NULL,
    CONSTRAINT uq_settlement_files UNIQUE (file_name, content_sha256),
    CONSTRAINT ck_settlement_files_state CHECK (state IN (N'Applying', N'Done', N'Failed'))
);
