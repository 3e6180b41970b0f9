//! SQL given on a database client's command line (`sqlite3 app.db "SELECT …"`,
//! `psql -c "SELECT …"`, `mysql -e "SHOW DATABASES"`): a query that only reads is as harmless as
//! `cat`; anything else — a write, a schema change, a function that touches files or the server,
//! a client command that runs a shell — is code sentinel does not judge.
//!
//! The test is deliberately narrow: every statement must start with a reading keyword, no word
//! anywhere may be one that writes or reaches outside the database, and every function called
//! must be a known pure one (a user-defined function in PostgreSQL or MySQL can do anything).
//! The words are `rules/sql_words.txt`; a person's file adds `forbidden` ones.

use crate::local::known::{Kind, Known};

/// Whether `sql` only reads from the database it is run against.
pub fn is_read_only(sql: &str, known: &Known) -> bool {
    let sql = sql.trim();
    if sql.is_empty() {
        return false;
    }
    if sql.starts_with('\\') {
        // One psql meta-command, whose arguments are names.
        let mut words = sql.split_whitespace();
        return sql.lines().count() == 1
            && known.holds(Kind::SqlMeta, words.next().unwrap_or(""))
            && words.all(|w| !w.contains(['\\', '|', '`', ';']));
    }
    if sql.starts_with('.') {
        // One dot-command per argument; its words are its own.
        return sql.lines().count() == 1
            && known.holds(Kind::SqlDot, sql.split_whitespace().next().unwrap_or(""));
    }
    let Some(tokens) = tokens(sql) else {
        return false;
    };
    let mut statement_start = true;
    for (i, t) in tokens.iter().enumerate() {
        match t {
            Token::Semicolon => statement_start = true,
            Token::Word(w) => {
                let upper = w.to_ascii_uppercase();
                if statement_start {
                    if !known.holds(Kind::SqlReading, &upper) {
                        return false;
                    }
                    statement_start = false;
                }
                if known.holds(Kind::SqlForbidden, &upper) {
                    return false;
                }
                // `PRAGMA journal_mode = WAL` writes; `PRAGMA table_info(t)` reads.
                if upper == "PRAGMA" && tokens[i..].contains(&Token::Equals) {
                    return false;
                }
                if tokens.get(i + 1) == Some(&Token::Open) && !known.holds(Kind::SqlPure, &upper) {
                    return false;
                }
            }
            Token::Equals | Token::Open | Token::Other => statement_start = false,
        }
    }
    true
}

#[derive(Debug, PartialEq, Eq)]
enum Token {
    Word(String),
    Semicolon,
    Open,
    Equals,
    Other,
}

/// Words, `;`, `(` and `=` outside quotes; None for a comment or an unterminated quote (which
/// could hide what follows), or a client command (`\!`, `\o` in psql).
fn tokens(sql: &str) -> Option<Vec<Token>> {
    let mut out = Vec::new();
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' | '`' => {
                // A literal or a quoted name; a doubled quote stays inside.
                loop {
                    match chars.next()? {
                        q if q == c => {
                            if chars.peek() == Some(&c) {
                                chars.next();
                            } else {
                                break;
                            }
                        }
                        '\\' if c == '\'' => {
                            chars.next()?;
                        }
                        _ => {}
                    }
                }
                out.push(Token::Other);
            }
            '-' if chars.peek() == Some(&'-') => return None,
            '/' if chars.peek() == Some(&'*') => return None,
            '#' | '\\' | '$' => return None,
            ';' => out.push(Token::Semicolon),
            '(' => out.push(Token::Open),
            '=' => out.push(Token::Equals),
            c if c.is_alphanumeric() || c == '_' => {
                let mut w = String::from(c);
                while let Some(&n) = chars.peek() {
                    if n.is_alphanumeric() || n == '_' {
                        w.push(n);
                        chars.next();
                    } else {
                        break;
                    }
                }
                out.push(Token::Word(w));
            }
            _ => out.push(Token::Other),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::is_read_only;
    use crate::local::known::Known;

    #[test]
    fn reading_queries_are_read_only() {
        for q in [
            "SELECT order_id, email FROM past_orders ORDER BY placed_at DESC LIMIT 3;",
            "select count(*) from products",
            "SHOW DATABASES",
            "SELECT chunk_id, substr(text,1,50) FROM chunks WHERE name = 'it''s';",
            ".tables",
            ".schema users",
            "PRAGMA table_info(users)",
            "EXPLAIN QUERY PLAN SELECT * FROM t WHERE a IN (1, 2)",
            "WITH x AS (SELECT 1) SELECT * FROM x",
            "DESCRIBE users; SHOW TABLES",
            "SELECT version()",
            "\\dt",
            "\\d+ users",
        ] {
            assert!(is_read_only(q, &Known::default()), "{q}");
        }
    }

    #[test]
    fn anything_else_is_not() {
        for q in [
            "DELETE FROM users",
            "SELECT 1; DROP TABLE users",
            "WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d",
            "SELECT * INTO OUTFILE '/tmp/x' FROM users",
            "SELECT load_file('/etc/shadow')",
            "SELECT readfile('/home/u/.ssh/id_rsa')",
            "SELECT writefile('x', 'y')",
            "SELECT pg_read_file('/etc/passwd')",
            "SELECT my_cleanup()",
            "SELECT load_extension('x')",
            "ATTACH DATABASE '/tmp/x' AS x",
            "PRAGMA journal_mode = WAL",
            "SELECT 1 -- ; DROP TABLE t",
            "SELECT 1 /* x */",
            "SELECT 'unterminated",
            "EXPLAIN ANALYZE DELETE FROM t",
            ".shell rm -rf ~",
            ".output /etc/x",
            ".once x.txt",
            "\\! rm -rf ~",
            "\\o /tmp/x",
            "\\d users \\! id",
            "\\copy t to 'x'",
            "SELECT 1 \\g |sh",
            "COPY t TO PROGRAM 'sh'",
            "SET ROLE admin",
            "",
            "   ",
            "SELECT $$x$$",
            "REPLACE INTO t VALUES (1)",
            "UPDATE t SET a = 1",
        ] {
            assert!(!is_read_only(q, &Known::default()), "{q}");
        }
    }
}
