-- The design note's table, as a shop has it (not Paysync's: it exists before Paysync and Paysync never creates it).
-- Here to try the example against; the tests create the same table.
CREATE TABLE dbo.Orders (
    Id BIGINT IDENTITY PRIMARY KEY,
    OrderNumber NVARCHAR(64) NOT NULL UNIQUE,
    Amount DECIMAL(19, 4) NOT NULL,
    Currency CHAR(3) NOT NULL,
    payment BIT NOT NULL DEFAULT 0,
    PaymentTransactionId NVARCHAR(128) NULL,
    ThirdPartyGuid NVARCHAR(64) NULL,
    CreatedAtUtc DATETIME2 NOT NULL,
    PaidAtUtc DATETIME2 NULL
);
