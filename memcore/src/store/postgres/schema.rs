//! The tables memcore keeps in the database, created and migrated by numbered steps.
//!
//! `memcore_schema` holds one row: the schema version and an id made when the schema was
//! first created (change-feed cursors name it, so a cursor of another database is never
//! taken for one of this). Every table is keyed by `namespace`, so that many projects
//! share one database. Collections and ids compare byte by byte (`COLLATE "C"`), so that
//! scans list them in the order every backend does, whatever the database's locale.
//!
//! Version 2 adds `memcore_vectors`: the vectors memcore embedded, one per memory and model,
//! with a hash of the text embedded, as little-endian `f32`s (see `vectors.rs`).

use postgres::Client;

use super::connection::failed;
use crate::{Error, Result};

/// The schema version this memcore writes and reads.
pub(super) const SCHEMA_VERSION: i32 = 2;

/// Migration `n` (1-based) takes a schema at version `n - 1` to version `n`.
const MIGRATIONS: [&str; SCHEMA_VERSION as usize] = [
    r#"
    CREATE TABLE memcore_memories (
        namespace   text   NOT NULL,
        collection  text   COLLATE "C" NOT NULL,
        id          text   COLLATE "C" NOT NULL,
        version     bigint NOT NULL,
        frontmatter jsonb  NOT NULL,
        content     text   NOT NULL,
        PRIMARY KEY (namespace, collection, id)
    );
    CREATE INDEX memcore_memories_by_id ON memcore_memories (namespace, id);

    CREATE TABLE memcore_history (
        namespace   text        NOT NULL,
        collection  text        COLLATE "C" NOT NULL,
        id          text        COLLATE "C" NOT NULL,
        version     bigint      NOT NULL,
        frontmatter jsonb       NOT NULL,
        content     text        NOT NULL,
        PRIMARY KEY (namespace, collection, id, version)
    );

    CREATE TABLE memcore_trash (
        seq         bigserial   PRIMARY KEY,
        namespace   text        NOT NULL,
        collection  text        COLLATE "C" NOT NULL,
        id          text        COLLATE "C" NOT NULL,
        deleted_at  text        NOT NULL,
        frontmatter jsonb       NOT NULL,
        content     text        NOT NULL
    );
    CREATE INDEX memcore_trash_by_id ON memcore_trash (namespace, id, seq);

    CREATE SEQUENCE memcore_change_seq;
    CREATE TABLE memcore_changes (
        namespace   text   NOT NULL,
        collection  text   COLLATE "C" NOT NULL,
        id          text   COLLATE "C" NOT NULL,
        seq         bigint NOT NULL,
        PRIMARY KEY (namespace, collection, id)
    );
    CREATE INDEX memcore_changes_by_seq ON memcore_changes (namespace, seq);
"#,
    r#"
    CREATE TABLE memcore_vectors (
        namespace   text  NOT NULL,
        collection  text  COLLATE "C" NOT NULL,
        id          text  COLLATE "C" NOT NULL,
        model       text  NOT NULL,
        text_hash   text  NOT NULL,
        vector      bytea NOT NULL,
        PRIMARY KEY (namespace, collection, id, model)
    );
"#,
];

/// The advisory lock key (`MEMC` in ASCII) under which schemas are created and migrated.
pub(super) const LOCK_CLASS: i32 = 0x4d45_4d43;

/// Creates or migrates memcore's tables to [`SCHEMA_VERSION`], under an advisory lock so
/// that processes opening together do it once. Returns the schema's id. A schema of a
/// newer memcore is refused and left alone.
pub(super) fn prepare(client: &mut Client) -> Result<String> {
    let what = "creating or migrating memcore's tables";
    let mut tx = client.transaction().map_err(failed(what))?;
    tx.execute("SELECT pg_advisory_xact_lock($1, 0)", &[&LOCK_CLASS]).map_err(failed(what))?;
    // Created only when missing: a role without CREATE on the schema may still use it.
    let exists: bool = tx
        .query_one("SELECT to_regclass('memcore_schema') IS NOT NULL", &[])
        .map_err(failed(what))?
        .get(0);
    if !exists {
        tx.batch_execute(
            "CREATE TABLE memcore_schema (
                 version  integer NOT NULL,
                 store_id text    NOT NULL DEFAULT md5(random()::text || clock_timestamp()::text)
             )",
        )
        .map_err(failed(what))?;
    }
    let row =
        tx.query_opt("SELECT version, store_id FROM memcore_schema", &[]).map_err(failed(what))?;
    let (found, store_id): (i32, String) = match row {
        Some(row) => (row.get(0), row.get(1)),
        None => {
            let row = tx
                .query_one(
                    "INSERT INTO memcore_schema (version) VALUES (0) RETURNING store_id",
                    &[],
                )
                .map_err(failed(what))?;
            (0, row.get(0))
        }
    };
    if found > SCHEMA_VERSION {
        return Err(Error::unsupported(
            format!("schema version {found} (written by a newer memcore)"),
            "postgres",
            format!(
                "upgrade memcore: this one reads schema versions up to {SCHEMA_VERSION}; the \
                 database was left as it is"
            ),
        ));
    }
    for (step, sql) in MIGRATIONS.iter().enumerate().skip(usize::try_from(found).unwrap_or(0)) {
        tx.batch_execute(sql).map_err(failed(what))?;
        let version = i32::try_from(step + 1).unwrap_or(SCHEMA_VERSION);
        tx.execute("UPDATE memcore_schema SET version = $1", &[&version]).map_err(failed(what))?;
    }
    tx.commit().map_err(failed(what))?;
    Ok(store_id)
}
