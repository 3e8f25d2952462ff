//! The connection to the database: opened on first use and again after it was lost, with
//! errors that name what memcore was doing and never show the password.

use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;

use std::collections::HashMap;

use parking_lot::Mutex;
use postgres::error::SqlState;
use postgres::types::ToSql;
use postgres::{Client, GenericClient, NoTls, Row, Statement, Transaction};

use crate::{Error, Result};

/// How long connecting may take when the URL does not say (`connect_timeout`).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a connection stays idle before TCP keepalives probe it.
const KEEPALIVE_IDLE: Duration = Duration::from_secs(30);

/// How long the server lets a transaction of ours sit idle before ending it.
const IDLE_IN_TRANSACTION: Duration = Duration::from_secs(60);

/// Where the database URL can be given, for recovery hints.
const URL_SOURCES: &str = "`postgres.url` in the store's config, or $MEMCORE_DATABASE_URL";

/// A connection string with its password hidden, safe to show in messages.
///
/// ```text
/// postgres://ann:secret@db/mem       -> postgres://ann:***@db/mem
/// host=db user=ann password=secret   -> host=db user=ann password=***
/// ```
///
/// In a URL (any `scheme://`), everything between the user's `:` and the first `@` is
/// hidden, as the driver reads it, and so is every `password=` value of the query; in
/// `key=value` form, every `password` value, quoted or not, escapes included.
pub(crate) fn redact(url: &str) -> String {
    match url.find("://") {
        Some(scheme_end) => {
            let (scheme, rest) = url.split_at(scheme_end + 3);
            let rest = match rest.find('@') {
                Some(at) => match rest[..at].find(':') {
                    Some(colon) => format!("{}:***{}", &rest[..colon], &rest[at..]),
                    None => rest.to_owned(),
                },
                None => rest.to_owned(),
            };
            let rest = hide_values(&rest, |c| c == '&' || c == '#');
            format!("{scheme}{rest}")
        }
        None => hide_values(url, char::is_whitespace),
    }
}

/// `text` with the value of every `password` key hidden: a quoted value up to its closing
/// quote, else up to `ends` (backslash escapes skipped).
fn hide_values(text: &str, ends: impl Fn(char) -> bool) -> String {
    let lower = text.to_ascii_lowercase();
    let mut shown = String::with_capacity(text.len());
    let mut from = 0;
    while let Some(found) = lower[from..].find("password") {
        let key_end = from + found + "password".len();
        let after_key = &text[key_end..];
        let Some(equals) = after_key
            .find(|c: char| !c.is_whitespace())
            .filter(|&i| after_key[i..].starts_with('='))
        else {
            shown.push_str(&text[from..key_end]);
            from = key_end;
            continue;
        };
        let value_start = key_end + equals + 1;
        let value_start =
            value_start + text[value_start..].find(|c: char| !c.is_whitespace()).unwrap_or(0);
        let mut chars = text[value_start..].char_indices();
        let quoted = text[value_start..].starts_with('\'');
        if quoted {
            chars.next();
        }
        let mut value_end = text.len();
        while let Some((i, c)) = chars.next() {
            if c == '\\' {
                chars.next();
            } else if (quoted && c == '\'') || (!quoted && ends(c)) {
                value_end = value_start + i + usize::from(quoted);
                break;
            }
        }
        shown.push_str(&text[from..value_start]);
        shown.push_str("***");
        from = value_end;
    }
    shown.push_str(&text[from..]);
    shown
}

/// One client connection, shared by the store's threads one call at a time.
pub(super) struct Connection {
    config: postgres::Config,
    /// The URL as shown in messages (password hidden).
    shown: String,
    session: Mutex<Option<Session>>,
    /// The server process of the current connection, so that the listener can tell this
    /// store's own notifications from those of other processes.
    backend_pid: AtomicI32,
}

impl Connection {
    /// A connection to `url` (a `postgres://` URL or `key=value` pairs), not yet opened.
    pub(super) fn new(url: &str, lock_timeout: Duration) -> Result<Self> {
        let shown = redact(url);
        let mut config: postgres::Config = url.parse().map_err(|e| {
            Error::validation(
                // Not shown: a URL that does not parse may hide its password in a way
                // `redact` cannot see.
                format!("the database URL does not parse ({e})"),
                format!("give a URL such as postgres://user@host:5432/dbname in {URL_SOURCES}"),
            )
        })?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        if config.get_application_name().is_none() {
            config.application_name("memcore");
        }
        // A peer that vanished mid-transaction (its machine lost the network) is noticed
        // in seconds, not the two hours of the system's default.
        if !url.contains("keepalives_idle") {
            config.keepalives_idle(KEEPALIVE_IDLE);
        }
        // Waits for another writer's lock end like the file store's (`lock_timeout_ms`), and
        // a transaction of ours left idle (a process stopped mid-write) is ended by the server.
        let options = format!(
            "{} -c lock_timeout={} -c idle_in_transaction_session_timeout={}",
            config.get_options().unwrap_or_default(),
            lock_timeout.as_millis(),
            IDLE_IN_TRANSACTION.as_millis()
        );
        config.options(options.trim_start());
        Ok(Self { config, shown, session: Mutex::new(None), backend_pid: AtomicI32::new(0) })
    }

    /// The URL with its password hidden.
    pub(super) fn shown(&self) -> &str {
        &self.shown
    }

    /// The server process id of the current connection (0 before the first).
    pub(super) fn backend_pid(&self) -> i32 {
        self.backend_pid.load(Ordering::Relaxed)
    }

    /// Opens a new client, as the listener does for its own connection.
    pub(super) fn connect(&self) -> Result<Client> {
        self.config.connect(NoTls).map_err(|e| {
            Error::storage(
                format!("cannot connect to the database {}: {e}", self.shown),
                Some(Box::new(e)),
                format!(
                    "check that PostgreSQL is running and that the URL's host, port, user, \
                     password and database are right ({URL_SOURCES}), then retry"
                ),
            )
        })
    }

    /// A new session for the store's calls, its server process id noted.
    fn open(&self) -> Result<Session> {
        let mut client = self.connect()?;
        let pid: i32 = client
            .query_one("SELECT pg_backend_pid()", &[])
            .map_err(failed("asking for the connection's process id"))?
            .get(0);
        self.backend_pid.store(pid, Ordering::Relaxed);
        Ok(Session { client, statements: HashMap::new() })
    }

    /// Runs `work` with the client, connecting first if there is none or it was lost. A
    /// client that fails with a lost connection is dropped, so the next call reconnects.
    pub(super) fn with<T>(
        &self,
        work: impl FnOnce(&mut Sql<'_, Client>) -> Result<T>,
    ) -> Result<T> {
        let mut slot = self.session.lock();
        let session = match slot.take() {
            Some(session) if !session.client.is_closed() => session,
            _ => self.open()?,
        };
        let session = slot.insert(session);
        let outcome =
            work(&mut Sql { client: &mut session.client, statements: &mut session.statements });
        if session.client.is_closed() {
            *slot = None;
        }
        outcome
    }
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection").field("database", &self.shown).finish_non_exhaustive()
    }
}

/// A connection's client and the statements prepared on it.
struct Session {
    client: Client,
    statements: HashMap<String, Statement>,
}

/// A client or a transaction that prepares each statement once per connection (saving a
/// round trip and the planning on every later call).
pub(super) struct Sql<'a, C> {
    /// The client or transaction statements run on.
    pub(super) client: &'a mut C,
    statements: &'a mut HashMap<String, Statement>,
}

/// A transaction with the connection's prepared statements.
pub(super) type Tx<'a, 'c> = Sql<'a, Transaction<'c>>;

/// Query parameters.
pub(super) type Params<'p> = [&'p (dyn ToSql + Sync)];

impl<C: GenericClient> Sql<'_, C> {
    fn prepared(&mut self, sql: &str) -> Result<Statement, postgres::Error> {
        if let Some(statement) = self.statements.get(sql) {
            return Ok(statement.clone());
        }
        let statement = self.client.prepare(sql)?;
        self.statements.insert(sql.to_owned(), statement.clone());
        Ok(statement)
    }

    /// The rows `sql` returns.
    pub(super) fn query(
        &mut self,
        sql: &str,
        params: &Params<'_>,
    ) -> Result<Vec<Row>, postgres::Error> {
        let statement = self.prepared(sql)?;
        self.client.query(&statement, params)
    }

    /// The one row `sql` returns.
    pub(super) fn query_one(
        &mut self,
        sql: &str,
        params: &Params<'_>,
    ) -> Result<Row, postgres::Error> {
        let statement = self.prepared(sql)?;
        self.client.query_one(&statement, params)
    }

    /// The row `sql` returns, if any.
    pub(super) fn query_opt(
        &mut self,
        sql: &str,
        params: &Params<'_>,
    ) -> Result<Option<Row>, postgres::Error> {
        let statement = self.prepared(sql)?;
        self.client.query_opt(&statement, params)
    }

    /// Runs `sql`; how many rows it changed.
    pub(super) fn execute(
        &mut self,
        sql: &str,
        params: &Params<'_>,
    ) -> Result<u64, postgres::Error> {
        let statement = self.prepared(sql)?;
        self.client.execute(&statement, params)
    }
}

impl Sql<'_, Client> {
    /// Runs `work` in a transaction, committed when it returns `Ok`, rolled back otherwise.
    pub(super) fn transaction<T>(
        &mut self,
        what: &str,
        work: impl FnOnce(&mut Tx<'_, '_>) -> Result<T>,
    ) -> Result<T> {
        let mut tx = self.client.transaction().map_err(failed(what))?;
        let outcome = work(&mut Sql { client: &mut tx, statements: &mut *self.statements })?;
        tx.commit().map_err(|e| {
            let lost = e.is_closed();
            let error = failed(what)(e);
            if !lost {
                return error;
            }
            // The server may have committed before the connection went.
            Error::storage(
                format!("lost the connection to the database while committing ({what})"),
                Some(Box::new(error)),
                "the write may or may not have been stored: read it back before retrying",
            )
        })?;
        Ok(outcome)
    }
}

/// Maps a driver error met while doing `what` to memcore's: a lost connection or a server
/// shutting down is a retryable storage error, a serialisation failure a conflict.
pub(super) fn failed(what: &str) -> impl Fn(postgres::Error) -> Error + '_ {
    move |e| {
        let lost = e.is_closed()
            || e.code().is_some_and(|code| {
                [
                    SqlState::ADMIN_SHUTDOWN,
                    SqlState::CRASH_SHUTDOWN,
                    SqlState::CANNOT_CONNECT_NOW,
                    SqlState::CONNECTION_FAILURE,
                ]
                .contains(code)
            })
            || (e.code().is_none() && e.to_string().contains("connection"));
        if lost {
            return Error::storage(
                format!("lost the connection to the database while {what}: {e}"),
                Some(Box::new(e)),
                "retry: nothing half-done was kept, and memcore reconnects on the next call; \
                 check that the database is running if this repeats",
            );
        }
        let clash = e.code().is_some_and(|code| {
            [
                SqlState::T_R_SERIALIZATION_FAILURE,
                SqlState::T_R_DEADLOCK_DETECTED,
                SqlState::LOCK_NOT_AVAILABLE,
            ]
            .contains(code)
        });
        if clash {
            return Error::conflict(
                format!("another writer got in the way while {what}: {e}"),
                "retry the call",
            );
        }
        // The driver's own text is only "db error"; the server's message says what failed.
        let detail = match e.as_db_error() {
            Some(db) => format!("{}: {}", db.severity(), db.message()),
            None => e.to_string(),
        };
        Error::storage(
            format!("the database failed while {what}: {detail}"),
            Some(Box::new(e)),
            "check the database's log; run `memcore verify` to compare the indexes with it",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::redact;

    #[test]
    fn passwords_are_hidden_in_every_url_form() {
        let cases = [
            ("postgres://ann:s3cret@db:5432/mem", "postgres://ann:***@db:5432/mem"),
            ("postgresql://ann:p%40ss@db/mem", "postgresql://ann:***@db/mem"),
            ("postgres://ann:s3/cr?et@db/mem", "postgres://ann:***@db/mem"),
            ("postgresql+psycopg2://ann:s3cret@db/mem", "postgresql+psycopg2://ann:***@db/mem"),
            ("postgres://ann@db/mem", "postgres://ann@db/mem"),
            (
                "postgres://db/mem?user=ann&password=s3cret",
                "postgres://db/mem?user=ann&password=***",
            ),
            ("postgres://db/mem?password=s3&cret=1", "postgres://db/mem?password=***&cret=1"),
            (
                "host=db user=ann password=s3cret dbname=mem",
                "host=db user=ann password=*** dbname=mem",
            ),
            ("host=db password = 's3 cr\\'et' dbname=mem", "host=db password = *** dbname=mem"),
            ("host=db password=s3\\ cret dbname=mem", "host=db password=*** dbname=mem"),
            ("host=db PASSWORD=s3cret", "host=db PASSWORD=***"),
            ("host=db passwordless=1 password=s3cret", "host=db passwordless=1 password=***"),
        ];
        for (url, shown) in cases {
            assert_eq!(redact(url), shown, "{url}");
            assert!(!redact(url).contains("s3"), "{url}");
        }
    }
}
