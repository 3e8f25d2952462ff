//! Dates a query names ("what did Ana cook on 16 June, 2023?", "in May 2022", "2023-06-16"):
//! the full-text side of a search prefers memories created then. The memories created in the
//! named window are searched for the same words too, so that one from that day is a candidate
//! even when the words alone rank it low, and each of them counts [`DATE_FACTOR`] times its
//! BM25 score. A day names the day before and after it too (time zones); a month names the
//! whole month. Without an LLM, only explicit dates are read: "last week" is not.

use std::collections::HashSet;

use chrono::{Days, Months, NaiveDate};

use crate::{MemoryRef, Timestamp};

/// How many times its BM25 score a memory from the named date counts.
pub(super) const DATE_FACTOR: f32 = 2.0;

/// The month names and their three-letter forms, in order.
const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// The first date `text` names, as a window of creation times `[from, to)`.
pub(super) fn named_window(text: &str) -> Option<(Timestamp, Timestamp)> {
    let words: Vec<String> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .map(|w| w.trim_matches('-').to_lowercase())
        .filter(|w| !w.is_empty())
        .collect();
    (0..words.len()).find_map(|i| window_at(&words[i..]))
}

/// The window of the date that `words` start with, if they start with one.
fn window_at(words: &[String]) -> Option<(Timestamp, Timestamp)> {
    let word = |i: usize| words.get(i).map(String::as_str);
    if let Some(day) = iso_day(word(0)?) {
        return day_window(day);
    }
    match (day_of(word(0)?), month_of(word(0)?)) {
        // 16 June 2023
        (Some(day), None) => {
            let month = month_of(word(1)?)?;
            day_window(NaiveDate::from_ymd_opt(year_of(word(2)?)?, month, day)?)
        }
        // June 16 2023, June 2023
        (None, Some(month)) => match (day_of(word(1)?), year_of(word(1)?)) {
            (Some(day), _) => day_window(NaiveDate::from_ymd_opt(year_of(word(2)?)?, month, day)?),
            (None, Some(year)) => month_window(NaiveDate::from_ymd_opt(year, month, 1)?),
            (None, None) => None,
        },
        _ => None,
    }
}

/// The day `word` is in ISO 8601 (`2023-06-16`, a time after it allowed: `2023-06-16t10`).
fn iso_day(word: &str) -> Option<NaiveDate> {
    let date = word.get(..10)?;
    let year_digits = date.get(..4)?.bytes().all(|b| b.is_ascii_digit());
    let day = NaiveDate::parse_from_str(date, "%Y-%m-%d").ok()?;
    (year_digits && year_of(&date[..4]).is_some()).then_some(day)
}

/// The month `word` names (1-12): its name or the first three or more letters of it ("jun",
/// "sept").
fn month_of(word: &str) -> Option<u32> {
    let index = MONTHS.iter().position(|month| word.len() >= 3 && month.starts_with(word))?;
    u32::try_from(index + 1).ok()
}

/// The day of the month `word` is (1-31, optionally with st/nd/rd/th).
fn day_of(word: &str) -> Option<u32> {
    let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &word[digits.len()..];
    let day: u32 = digits.parse().ok()?;
    let suffix_ok = matches!(suffix, "" | "st" | "nd" | "rd" | "th");
    (suffix_ok && (1..=31).contains(&day) && digits.len() <= 2).then_some(day)
}

/// The year `word` is (four digits, 1000-2999).
fn year_of(word: &str) -> Option<i32> {
    let year: i32 = word.parse().ok()?;
    (word.len() == 4 && (1000..3000).contains(&year)).then_some(year)
}

/// The window of `day`, from the start of the day before to the end of the day after.
fn day_window(day: NaiveDate) -> Option<(Timestamp, Timestamp)> {
    let from = day.checked_sub_days(Days::new(1))?;
    let to = day.checked_add_days(Days::new(2))?;
    Some((midnight(from)?, midnight(to)?))
}

/// The window of the month starting on `first`.
fn month_window(first: NaiveDate) -> Option<(Timestamp, Timestamp)> {
    Some((midnight(first)?, midnight(first.checked_add_months(Months::new(1))?)?))
}

/// The start of `day`, in UTC.
fn midnight(day: NaiveDate) -> Option<Timestamp> {
    Some(day.and_hms_opt(0, 0, 0)?.and_utc())
}

/// Full-text hits, best first, and which of them are from the date the query names.
pub(super) type TextHits = (Vec<(MemoryRef, f32)>, HashSet<MemoryRef>);

/// The full-text hits of a search that named a date: `everywhere` (the query's hits) and
/// `dated` (its hits among the memories of the named window) merged, each dated hit counted
/// [`DATE_FACTOR`] times, best first, at most `limit`. Returns the hits (with their own BM25
/// scores) and which of them are dated.
pub(super) fn prefer_dated(
    everywhere: Vec<(MemoryRef, f32)>,
    dated: Vec<(MemoryRef, f32)>,
    limit: usize,
) -> TextHits {
    let dated_keys: HashSet<MemoryRef> = dated.iter().map(|(key, _)| key.clone()).collect();
    let mut hits: Vec<(MemoryRef, f32)> = dated;
    hits.extend(everywhere.into_iter().filter(|(key, _)| !dated_keys.contains(key)));
    let weight = |(key, score): &(MemoryRef, f32)| match dated_keys.contains(key) {
        true => score * DATE_FACTOR,
        false => *score,
    };
    hits.sort_by(|a, b| weight(b).total_cmp(&weight(a)).then_with(|| a.0.cmp(&b.0)));
    hits.truncate(limit);
    (hits, dated_keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(text: &str) -> Option<(String, String)> {
        named_window(text)
            .map(|(from, to)| (from.date_naive().to_string(), to.date_naive().to_string()))
    }

    fn days(from: &str, to: &str) -> Option<(String, String)> {
        Some((from.to_owned(), to.to_owned()))
    }

    #[test]
    fn days_and_months_are_read_in_the_usual_orders() {
        let day = days("2023-06-15", "2023-06-18");
        assert_eq!(window("What did Maria share on 16 June, 2023?"), day);
        assert_eq!(window("what happened June 16th 2023"), day);
        assert_eq!(window("notes from 2023-06-16 please"), day);
        assert_eq!(window("the 2023-06-16T10:00 sync"), day);
        assert_eq!(window("on Jun 16, 2023"), day);
        assert_eq!(
            window("Which cake did she bake in May 2022?"),
            days("2022-05-01", "2022-06-01")
        );
        assert_eq!(window("in December, 2023"), days("2023-12-01", "2024-01-01"));
        let month = days("2023-02-01", "2023-03-01");
        assert_eq!(window("31 February 2023"), month, "no such day, but the month is named");
    }

    #[test]
    fn words_that_are_no_date_name_none() {
        for text in [
            "May I ask what you cooked?",
            "the 2023 roadmap",
            "june bugs at 16",
            "ticket 12-34-56",
            "version 4-4-2 of 10-12-14",
            "",
        ] {
            assert_eq!(window(text), None, "{text}");
        }
    }

    #[test]
    fn dated_hits_count_twice_and_keep_their_scores() {
        let key = |k: &str| k.parse::<MemoryRef>().unwrap();
        let everywhere = vec![(key("m/a"), 3.0), (key("m/b"), 2.0)];
        let dated = vec![(key("m/b"), 2.0), (key("m/c"), 1.0)];
        let (hits, dated) = prefer_dated(everywhere, dated, 2);
        assert_eq!(hits, [(key("m/b"), 2.0), (key("m/a"), 3.0)]);
        assert!(dated.contains(&key("m/c")) && !dated.contains(&key("m/a")));
    }
}
