-- 001_initial: Proctor's whole data model.
--
-- Written in PostgreSQL; migrate.go translates the small type vocabulary to SQLite. Conventions:
--   * every school-scoped table carries school_id and an index leading with it;
--   * parents that children point at expose UNIQUE (school_id, id), and children reference them
--     through (school_id, parent_id), so the database itself refuses a row that links two schools;
--   * members are deployment-wide (one person, several schools), so references to them are plain;
--   * times are TIMESTAMPTZ in UTC, JSON documents are TEXT, money is BIGINT minor units.

CREATE TABLE schools (
    id          BIGINT PRIMARY KEY,
    subdomain   TEXT NOT NULL UNIQUE,
    name        TEXT NOT NULL DEFAULT '',
    settings    TEXT NOT NULL DEFAULT '{}',
    appearance  TEXT NOT NULL DEFAULT '{}',
    created_at  TIMESTAMPTZ NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL
);

CREATE TABLE members (
    id             BIGSERIAL PRIMARY KEY,
    email          TEXT NOT NULL UNIQUE,
    name           TEXT NOT NULL DEFAULT '',
    avatar_url     TEXT NOT NULL DEFAULT '',
    password_hash  TEXT NOT NULL DEFAULT '',
    created_at     TIMESTAMPTZ NOT NULL,
    updated_at     TIMESTAMPTZ NOT NULL
);

CREATE TABLE member_roles (
    school_id   BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    member_id   BIGINT NOT NULL REFERENCES members (id) ON DELETE CASCADE,
    role        TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (school_id, member_id, role)
);
CREATE INDEX member_roles_member_idx ON member_roles (member_id);

-- Courses and curricula.

CREATE TABLE courses (
    id            BIGSERIAL PRIMARY KEY,
    school_id     BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    slug          TEXT NOT NULL,
    title         TEXT NOT NULL DEFAULT '',
    description   TEXT NOT NULL DEFAULT '',
    price_amount  BIGINT NOT NULL DEFAULT 0,
    currency      TEXT NOT NULL DEFAULT '',
    published     BOOLEAN NOT NULL DEFAULT FALSE,
    created_at    TIMESTAMPTZ NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL,
    UNIQUE (school_id, slug),
    UNIQUE (school_id, id)
);

CREATE TABLE course_sections (
    id         BIGSERIAL PRIMARY KEY,
    school_id  BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    course_id  BIGINT NOT NULL,
    position   INTEGER NOT NULL,
    title      TEXT NOT NULL DEFAULT '',
    UNIQUE (course_id, position),
    UNIQUE (school_id, id),
    FOREIGN KEY (school_id, course_id) REFERENCES courses (school_id, id) ON DELETE CASCADE
);
CREATE INDEX course_sections_school_idx ON course_sections (school_id, course_id);

CREATE TABLE lectures (
    id                BIGSERIAL PRIMARY KEY,
    school_id         BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    course_id         BIGINT NOT NULL,
    section_id        BIGINT NOT NULL,
    position          INTEGER NOT NULL,
    title             TEXT NOT NULL DEFAULT '',
    duration_seconds  INTEGER NOT NULL DEFAULT 0,
    is_locked         BOOLEAN NOT NULL DEFAULT FALSE,
    unlock_at         TIMESTAMPTZ,
    UNIQUE (section_id, position),
    UNIQUE (school_id, id),
    FOREIGN KEY (school_id, course_id) REFERENCES courses (school_id, id) ON DELETE CASCADE,
    FOREIGN KEY (school_id, section_id) REFERENCES course_sections (school_id, id) ON DELETE CASCADE
);
CREATE INDEX lectures_course_idx ON lectures (course_id);
CREATE INDEX lectures_school_idx ON lectures (school_id, course_id);

CREATE TABLE enrollments (
    id               BIGSERIAL PRIMARY KEY,
    school_id        BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    member_id        BIGINT NOT NULL REFERENCES members (id) ON DELETE CASCADE,
    course_id        BIGINT NOT NULL,
    expire_date      TIMESTAMPTZ,
    lifetime_access  BOOLEAN NOT NULL DEFAULT FALSE,
    enrolled_at      TIMESTAMPTZ NOT NULL,
    UNIQUE (school_id, member_id, course_id),
    FOREIGN KEY (school_id, course_id) REFERENCES courses (school_id, id) ON DELETE CASCADE
);

CREATE TABLE lecture_progress (
    school_id         BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    member_id         BIGINT NOT NULL REFERENCES members (id) ON DELETE CASCADE,
    lecture_id        BIGINT NOT NULL,
    course_id         BIGINT NOT NULL,
    state             TEXT NOT NULL,
    position_seconds  INTEGER NOT NULL DEFAULT 0,
    updated_at        TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (member_id, lecture_id),
    FOREIGN KEY (school_id, lecture_id) REFERENCES lectures (school_id, id) ON DELETE CASCADE,
    FOREIGN KEY (school_id, course_id) REFERENCES courses (school_id, id) ON DELETE CASCADE
);
CREATE INDEX lecture_progress_member_idx ON lecture_progress (school_id, member_id, course_id);

-- Digital products.

CREATE TABLE digital_products (
    id            BIGSERIAL PRIMARY KEY,
    school_id     BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    slug          TEXT NOT NULL,
    title         TEXT NOT NULL DEFAULT '',
    description   TEXT NOT NULL DEFAULT '',
    price_amount  BIGINT NOT NULL DEFAULT 0,
    currency      TEXT NOT NULL DEFAULT '',
    published     BOOLEAN NOT NULL DEFAULT FALSE,
    UNIQUE (school_id, slug),
    UNIQUE (school_id, id)
);

CREATE TABLE product_holdings (
    id          BIGSERIAL PRIMARY KEY,
    school_id   BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    member_id   BIGINT NOT NULL REFERENCES members (id) ON DELETE CASCADE,
    product_id  BIGINT NOT NULL,
    granted_at  TIMESTAMPTZ NOT NULL,
    UNIQUE (school_id, member_id, product_id),
    FOREIGN KEY (school_id, product_id) REFERENCES digital_products (school_id, id) ON DELETE CASCADE
);

-- Consulting.

CREATE TABLE consulting_services (
    id                BIGSERIAL PRIMARY KEY,
    school_id         BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    slug              TEXT NOT NULL,
    title             TEXT NOT NULL DEFAULT '',
    description       TEXT NOT NULL DEFAULT '',
    price_amount      BIGINT NOT NULL DEFAULT 0,
    currency          TEXT NOT NULL DEFAULT '',
    duration_minutes  INTEGER NOT NULL DEFAULT 0,
    UNIQUE (school_id, slug),
    UNIQUE (school_id, id)
);

CREATE TABLE consulting_service_courses (
    school_id   BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    service_id  BIGINT NOT NULL,
    course_id   BIGINT NOT NULL,
    PRIMARY KEY (service_id, course_id),
    FOREIGN KEY (school_id, service_id) REFERENCES consulting_services (school_id, id) ON DELETE CASCADE,
    FOREIGN KEY (school_id, course_id) REFERENCES courses (school_id, id) ON DELETE CASCADE
);
CREATE INDEX consulting_service_courses_school_idx ON consulting_service_courses (school_id, course_id);

CREATE TABLE consulting_slots (
    id                BIGSERIAL PRIMARY KEY,
    school_id         BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    service_id        BIGINT NOT NULL,
    weekday           INTEGER NOT NULL,
    start_time        TEXT NOT NULL,
    duration_minutes  INTEGER NOT NULL DEFAULT 0,
    time_zone         TEXT NOT NULL DEFAULT '',
    UNIQUE (service_id, weekday, start_time),
    FOREIGN KEY (school_id, service_id) REFERENCES consulting_services (school_id, id) ON DELETE CASCADE
);
CREATE INDEX consulting_slots_school_idx ON consulting_slots (school_id, service_id);

CREATE TABLE consulting_meetings (
    id          BIGSERIAL PRIMARY KEY,
    school_id   BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    service_id  BIGINT NOT NULL,
    member_id   BIGINT NOT NULL REFERENCES members (id) ON DELETE CASCADE,
    starts_at   TIMESTAMPTZ NOT NULL,
    ends_at     TIMESTAMPTZ NOT NULL,
    UNIQUE (service_id, starts_at),
    FOREIGN KEY (school_id, service_id) REFERENCES consulting_services (school_id, id) ON DELETE CASCADE
);
CREATE INDEX consulting_meetings_member_idx ON consulting_meetings (school_id, member_id, starts_at);

-- Events.

CREATE TABLE events (
    id            BIGSERIAL PRIMARY KEY,
    school_id     BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    slug          TEXT NOT NULL,
    title         TEXT NOT NULL DEFAULT '',
    description   TEXT NOT NULL DEFAULT '',
    starts_at     TIMESTAMPTZ NOT NULL,
    ends_at       TIMESTAMPTZ NOT NULL,
    location      TEXT NOT NULL DEFAULT '',
    price_amount  BIGINT NOT NULL DEFAULT 0,
    currency      TEXT NOT NULL DEFAULT '',
    capacity      INTEGER NOT NULL DEFAULT 0,
    published     BOOLEAN NOT NULL DEFAULT FALSE,
    UNIQUE (school_id, slug),
    UNIQUE (school_id, id)
);

CREATE TABLE event_registrations (
    id             BIGSERIAL PRIMARY KEY,
    school_id      BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    event_id       BIGINT NOT NULL,
    member_id      BIGINT NOT NULL REFERENCES members (id) ON DELETE CASCADE,
    status         TEXT NOT NULL,
    registered_at  TIMESTAMPTZ NOT NULL,
    UNIQUE (event_id, member_id),
    FOREIGN KEY (school_id, event_id) REFERENCES events (school_id, id) ON DELETE CASCADE
);
CREATE INDEX event_registrations_member_idx ON event_registrations (school_id, member_id);

-- Payments. A payment outlives the member's other rows: it is a ledger entry, so deleting a member
-- with payments is refused rather than cascaded.

CREATE TABLE payments (
    id                   BIGSERIAL PRIMARY KEY,
    school_id            BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    trade_no             TEXT NOT NULL,
    member_id            BIGINT NOT NULL REFERENCES members (id),
    amount               BIGINT NOT NULL,
    currency             TEXT NOT NULL,
    payment_type         TEXT,
    payment_state        TEXT NOT NULL,
    created_at           TIMESTAMPTZ NOT NULL,
    paid_at              TIMESTAMPTZ,
    expired_at           TIMESTAMPTZ,
    refunding_state      TEXT NOT NULL DEFAULT 'none',
    refunded_amount      BIGINT NOT NULL DEFAULT 0,
    refunded_at          TIMESTAMPTZ,
    refund_requested_at  TIMESTAMPTZ,
    bank_code            TEXT NOT NULL DEFAULT '',
    bank_name            TEXT NOT NULL DEFAULT '',
    code_no              TEXT NOT NULL DEFAULT '',
    line_items           TEXT NOT NULL DEFAULT '[]',
    adjustments          TEXT NOT NULL DEFAULT '[]',
    invoice              TEXT,
    installment          TEXT,
    UNIQUE (school_id, trade_no)
);
-- "Newest first" paging of a member's payments walks this index in order.
CREATE INDEX payments_member_idx ON payments (school_id, member_id, created_at DESC, id DESC);

-- Notifications.

CREATE TABLE notifications (
    id          BIGSERIAL PRIMARY KEY,
    school_id   BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    key         TEXT NOT NULL,
    member_id   BIGINT NOT NULL REFERENCES members (id) ON DELETE CASCADE,
    kind        TEXT NOT NULL,
    title       TEXT NOT NULL DEFAULT '',
    body        TEXT NOT NULL DEFAULT '',
    url         TEXT NOT NULL DEFAULT '',
    created_at  TIMESTAMPTZ NOT NULL,
    read_at     TIMESTAMPTZ,
    UNIQUE (school_id, key)
);
CREATE INDEX notifications_member_idx ON notifications (school_id, member_id, created_at);

CREATE TABLE notification_subscriptions (
    school_id  BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    member_id  BIGINT NOT NULL REFERENCES members (id) ON DELETE CASCADE,
    topic      TEXT NOT NULL,
    channel    TEXT NOT NULL,
    enabled    BOOLEAN NOT NULL DEFAULT FALSE,
    PRIMARY KEY (school_id, member_id, topic, channel)
);

-- Memberships and coupons.

CREATE TABLE membership_plans (
    id                BIGSERIAL PRIMARY KEY,
    school_id         BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    slug              TEXT NOT NULL,
    title             TEXT NOT NULL DEFAULT '',
    description       TEXT NOT NULL DEFAULT '',
    price_amount      BIGINT NOT NULL DEFAULT 0,
    currency          TEXT NOT NULL DEFAULT '',
    billing_interval  TEXT NOT NULL,
    published         BOOLEAN NOT NULL DEFAULT FALSE,
    UNIQUE (school_id, slug),
    UNIQUE (school_id, id)
);

CREATE TABLE subscriptions (
    id                  BIGSERIAL PRIMARY KEY,
    school_id           BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    member_id           BIGINT NOT NULL REFERENCES members (id) ON DELETE CASCADE,
    plan_id             BIGINT NOT NULL,
    state               TEXT NOT NULL,
    started_at          TIMESTAMPTZ NOT NULL,
    current_period_end  TIMESTAMPTZ NOT NULL,
    UNIQUE (school_id, member_id, plan_id),
    FOREIGN KEY (school_id, plan_id) REFERENCES membership_plans (school_id, id) ON DELETE CASCADE
);

CREATE TABLE coupons (
    id               BIGSERIAL PRIMARY KEY,
    school_id        BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    code             TEXT NOT NULL,
    title            TEXT NOT NULL DEFAULT '',
    percent_off      INTEGER NOT NULL DEFAULT 0,
    amount_off       BIGINT NOT NULL DEFAULT 0,
    currency         TEXT NOT NULL DEFAULT '',
    expires_at       TIMESTAMPTZ,
    max_redemptions  INTEGER NOT NULL DEFAULT 0,
    redeemed_count   INTEGER NOT NULL DEFAULT 0,
    UNIQUE (school_id, code)
);

-- Posts and comments.

CREATE TABLE posts (
    id                BIGSERIAL PRIMARY KEY,
    school_id         BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    key               TEXT NOT NULL,
    title             TEXT NOT NULL DEFAULT '',
    body              TEXT NOT NULL DEFAULT '',
    course_id         BIGINT,
    author_member_id  BIGINT REFERENCES members (id) ON DELETE SET NULL,
    published_at      TIMESTAMPTZ NOT NULL,
    UNIQUE (school_id, key),
    UNIQUE (school_id, id),
    FOREIGN KEY (school_id, course_id) REFERENCES courses (school_id, id) ON DELETE CASCADE
);
CREATE INDEX posts_published_idx ON posts (school_id, published_at);

CREATE TABLE comments (
    id          BIGSERIAL PRIMARY KEY,
    school_id   BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    key         TEXT NOT NULL,
    member_id   BIGINT NOT NULL REFERENCES members (id) ON DELETE CASCADE,
    post_id     BIGINT,
    lecture_id  BIGINT,
    body        TEXT NOT NULL DEFAULT '',
    created_at  TIMESTAMPTZ NOT NULL,
    UNIQUE (school_id, key),
    CHECK ((post_id IS NULL) <> (lecture_id IS NULL)),
    FOREIGN KEY (school_id, post_id) REFERENCES posts (school_id, id) ON DELETE CASCADE,
    FOREIGN KEY (school_id, lecture_id) REFERENCES lectures (school_id, id) ON DELETE CASCADE
);
CREATE INDEX comments_post_idx ON comments (school_id, post_id, created_at);
CREATE INDEX comments_lecture_idx ON comments (school_id, lecture_id, created_at);

-- Lecturers.

CREATE TABLE lecturers (
    id          BIGSERIAL PRIMARY KEY,
    school_id   BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    slug        TEXT NOT NULL,
    name        TEXT NOT NULL DEFAULT '',
    bio         TEXT NOT NULL DEFAULT '',
    avatar_url  TEXT NOT NULL DEFAULT '',
    member_id   BIGINT REFERENCES members (id) ON DELETE SET NULL,
    UNIQUE (school_id, slug),
    UNIQUE (school_id, id)
);

CREATE TABLE lecturer_courses (
    school_id    BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    lecturer_id  BIGINT NOT NULL,
    course_id    BIGINT NOT NULL,
    PRIMARY KEY (lecturer_id, course_id),
    FOREIGN KEY (school_id, lecturer_id) REFERENCES lecturers (school_id, id) ON DELETE CASCADE,
    FOREIGN KEY (school_id, course_id) REFERENCES courses (school_id, id) ON DELETE CASCADE
);
CREATE INDEX lecturer_courses_school_idx ON lecturer_courses (school_id, course_id);

-- Forms and pages.

CREATE TABLE forms (
    id         BIGSERIAL PRIMARY KEY,
    school_id  BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    slug       TEXT NOT NULL,
    title      TEXT NOT NULL DEFAULT '',
    fields     TEXT NOT NULL DEFAULT '[]',
    UNIQUE (school_id, slug),
    UNIQUE (school_id, id)
);

CREATE TABLE form_submissions (
    id            BIGSERIAL PRIMARY KEY,
    school_id     BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    key           TEXT NOT NULL,
    form_id       BIGINT NOT NULL,
    member_id     BIGINT REFERENCES members (id) ON DELETE SET NULL,
    data          TEXT NOT NULL DEFAULT '{}',
    submitted_at  TIMESTAMPTZ NOT NULL,
    UNIQUE (school_id, key),
    FOREIGN KEY (school_id, form_id) REFERENCES forms (school_id, id) ON DELETE CASCADE
);
CREATE INDEX form_submissions_form_idx ON form_submissions (school_id, form_id, submitted_at);

CREATE TABLE pages (
    id         BIGSERIAL PRIMARY KEY,
    school_id  BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    slug       TEXT NOT NULL,
    title      TEXT NOT NULL DEFAULT '',
    body       TEXT NOT NULL DEFAULT '',
    published  BOOLEAN NOT NULL DEFAULT FALSE,
    UNIQUE (school_id, slug)
);

CREATE TABLE stored_files (
    id            BIGSERIAL PRIMARY KEY,
    school_id     BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    name          TEXT NOT NULL,
    content_type  TEXT NOT NULL DEFAULT '',
    size_bytes    BIGINT NOT NULL DEFAULT 0,
    sha256        TEXT NOT NULL DEFAULT '',
    storage_path  TEXT NOT NULL,
    uploaded_by   BIGINT REFERENCES members (id) ON DELETE SET NULL,
    created_at    TIMESTAMPTZ NOT NULL
);
CREATE INDEX stored_files_school_idx ON stored_files (school_id, created_at);

-- OAuth. Tokens and client secrets are kept only as signatures or keyed hashes, never in the
-- clear; "data" holds the serialised authorisation request the grant was issued for. Grants name
-- their client_id without a foreign key: a client identified by a metadata document URL (CIMD)
-- need not have a row in oauth_clients. Deleting a client revokes its grants explicitly.

CREATE TABLE oauth_clients (
    id                          TEXT PRIMARY KEY,
    school_id                   BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    kind                        TEXT NOT NULL,
    name                        TEXT NOT NULL DEFAULT '',
    secret_hash                 TEXT,
    token_endpoint_auth_method  TEXT NOT NULL,
    application_type            TEXT NOT NULL DEFAULT 'web',
    redirect_uris               TEXT NOT NULL DEFAULT '[]',
    scopes                      TEXT NOT NULL DEFAULT '[]',
    created_at                  TIMESTAMPTZ NOT NULL,
    updated_at                  TIMESTAMPTZ NOT NULL
);
CREATE INDEX oauth_clients_school_idx ON oauth_clients (school_id, kind);

CREATE TABLE oauth_authorization_codes (
    signature     TEXT PRIMARY KEY,
    request_id    TEXT NOT NULL,
    school_id     BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    client_id     TEXT NOT NULL,
    member_id     BIGINT NOT NULL REFERENCES members (id) ON DELETE CASCADE,
    active        BOOLEAN NOT NULL DEFAULT TRUE,
    data          TEXT NOT NULL,
    requested_at  TIMESTAMPTZ NOT NULL,
    expires_at    TIMESTAMPTZ NOT NULL
);
CREATE INDEX oauth_authorization_codes_request_idx ON oauth_authorization_codes (school_id, request_id);
CREATE INDEX oauth_authorization_codes_expiry_idx ON oauth_authorization_codes (expires_at);

CREATE TABLE oauth_pkce_sessions (
    signature   TEXT PRIMARY KEY,
    request_id  TEXT NOT NULL,
    school_id   BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    data        TEXT NOT NULL,
    expires_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX oauth_pkce_sessions_school_idx ON oauth_pkce_sessions (school_id, request_id);
CREATE INDEX oauth_pkce_sessions_expiry_idx ON oauth_pkce_sessions (expires_at);

CREATE TABLE oauth_oidc_sessions (
    signature   TEXT PRIMARY KEY,
    request_id  TEXT NOT NULL,
    school_id   BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    data        TEXT NOT NULL,
    expires_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX oauth_oidc_sessions_school_idx ON oauth_oidc_sessions (school_id, request_id);
CREATE INDEX oauth_oidc_sessions_expiry_idx ON oauth_oidc_sessions (expires_at);

-- One row per access/refresh pair: rotating a refresh token inserts a new pair that names the one
-- it replaces, and revoking stamps revoked_at, so one UPDATE revokes both tokens of a pair.
CREATE TABLE oauth_token_pairs (
    id                  BIGSERIAL PRIMARY KEY,
    request_id          TEXT NOT NULL,
    school_id           BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    client_id           TEXT NOT NULL,
    member_id           BIGINT REFERENCES members (id) ON DELETE CASCADE,
    access_signature    TEXT NOT NULL UNIQUE,
    refresh_signature   TEXT UNIQUE,
    resource            TEXT NOT NULL DEFAULT '',
    scopes              TEXT NOT NULL DEFAULT '',
    data                TEXT NOT NULL,
    requested_at        TIMESTAMPTZ NOT NULL,
    access_expires_at   TIMESTAMPTZ NOT NULL,
    refresh_expires_at  TIMESTAMPTZ,
    revoked_at          TIMESTAMPTZ,
    first_used_at       TIMESTAMPTZ,
    replaces_pair_id    BIGINT REFERENCES oauth_token_pairs (id) ON DELETE SET NULL
);
CREATE INDEX oauth_token_pairs_request_idx ON oauth_token_pairs (request_id);
CREATE INDEX oauth_token_pairs_member_idx ON oauth_token_pairs (school_id, member_id, client_id);
CREATE INDEX oauth_token_pairs_client_idx ON oauth_token_pairs (school_id, client_id);
CREATE INDEX oauth_token_pairs_expiry_idx ON oauth_token_pairs (refresh_expires_at);

CREATE TABLE signing_keys (
    kid                    TEXT PRIMARY KEY,
    school_id              BIGINT NOT NULL REFERENCES schools (id) ON DELETE CASCADE,
    algorithm              TEXT NOT NULL,
    public_jwk             TEXT NOT NULL,
    private_key_encrypted  BYTEA NOT NULL,
    created_at             TIMESTAMPTZ NOT NULL,
    retired_at             TIMESTAMPTZ
);
CREATE INDEX signing_keys_school_idx ON signing_keys (school_id, created_at);
