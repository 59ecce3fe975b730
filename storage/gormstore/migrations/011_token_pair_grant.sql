-- 011_token_pair_grant: what a resource server checks of a token pair's grant, in columns of its
-- own (storage.TokenPair.SchoolID and AMR) instead of inside the request the authorization server
-- serialised into data.
--
-- grant_school_id is the school the grant was made at, as the authorization server recorded it
-- (0: none, refused as issued for another organization). It is not school_id: that column says
-- where the row is kept and scopes every statement, so a pair found at a school always has it.
-- amr is how the member had signed in (RFC 8176 values), space-separated like scopes.
ALTER TABLE oauth_token_pairs ADD COLUMN grant_school_id BIGINT NOT NULL DEFAULT 0;
ALTER TABLE oauth_token_pairs ADD COLUMN amr TEXT NOT NULL DEFAULT '';

-- Existing pairs take both from the serialised session, where the authorization server kept them
-- until now ({"session": {"school_id": 1, "id_token_claims": {"amr": ["pwd", "otp"]}}}), so a
-- token issued before the upgrade is judged as before: a session without school_id gives 0. The
-- ->> of the amr array is its JSON text (["pwd", "otp"] on PostgreSQL, ["pwd","otp"] on SQLite);
-- RFC 8176 values hold no brackets, quotes, commas or spaces, so stripping those leaves the
-- values space-separated. Both databases read JSON text with -> and ->> (SQLite since 3.38).
UPDATE oauth_token_pairs SET
    grant_school_id = COALESCE(CAST(CAST(data AS JSONB) -> 'session' ->> 'school_id' AS BIGINT), 0),
    amr = COALESCE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(
        CAST(data AS JSONB) -> 'session' -> 'id_token_claims' ->> 'amr',
        '[', ''), ']', ''), '"', ''), ', ', ' '), ',', ' '), '');
