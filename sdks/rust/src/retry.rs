//! Opt-in retry: which calls may be repeated, how long to wait between attempts, and what a
//! server's `Retry-After` means. Waits use exponential backoff with full jitter (a random wait
//! between zero and the current ceiling), so many clients failing together do not retry together.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How a client retries. Off unless a client is built with [`crate::ClientBuilder::retry`] or
/// [`crate::ClientBuilder::max_retries`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts after the first (default 2).
    pub max_retries: u32,
    /// The first backoff ceiling (default 500 ms); it doubles with every attempt.
    pub base_delay: Duration,
    /// The longest wait between attempts (default 30 s). A `Retry-After` asking for longer ends
    /// the retries with the error, since waiting that long (a monthly cap) inside a call helps nobody.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 2,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// A random wait up to `min(max_delay, base_delay × 2^attempt)`.
    pub(crate) fn backoff(&self, attempt: u32) -> Duration {
        let ceiling = self
            .base_delay
            .saturating_mul(2u32.saturating_pow(attempt))
            .min(self.max_delay);
        ceiling.mul_f64(random_fraction())
    }
}

/// Only these verbs are repeated: doing them twice has the effect of doing them once.
pub(crate) fn is_idempotent(method: &reqwest::Method) -> bool {
    matches!(
        method.as_str(),
        "GET" | "HEAD" | "PUT" | "DELETE" | "OPTIONS"
    )
}

/// The statuses worth another attempt: rate limits and passing server trouble.
pub(crate) fn is_retry_status(status: u16) -> bool {
    matches!(status, 429 | 500 | 502 | 503 | 504)
}

/// A uniform number in [0, 1). `RandomState` is seeded afresh per call from the OS's randomness,
/// which is enough for jitter and spares a dependency.
fn random_fraction() -> f64 {
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u128(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_nanos()),
    );
    (hasher.finish() >> 11) as f64 / (1u64 << 53) as f64
}

/// The wait a `Retry-After` value asks for: delta-seconds, or an HTTP date (IMF-fixdate,
/// `Sun, 06 Nov 1994 08:49:37 GMT`) measured from `now`; a date in the past means no wait.
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let text = value.trim();
    if !text.is_empty() && text.bytes().all(|byte| byte.is_ascii_digit()) {
        return text.parse::<u64>().ok().map(Duration::from_secs);
    }
    let date = parse_http_date(text)?;
    Some(date.duration_since(now).unwrap_or(Duration::ZERO))
}

/// Parses an IMF-fixdate, the HTTP date format servers send (RFC 9110 §5.6.7).
fn parse_http_date(text: &str) -> Option<SystemTime> {
    let parts: Vec<&str> = text.split_ascii_whitespace().collect();
    let [weekday, day, month, year, time, zone] = parts.as_slice() else {
        return None;
    };
    if !weekday.ends_with(',') || *zone != "GMT" {
        return None;
    }
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS.iter().position(|name| name == month)? as i64 + 1;
    let day: i64 = day.parse().ok()?;
    let year: i64 = year.parse().ok()?;
    let clock: Vec<i64> = time
        .split(':')
        .map(|part| part.parse().ok())
        .collect::<Option<_>>()?;
    let [hours, minutes, seconds] = clock.as_slice() else {
        return None;
    };
    if !(1..=31).contains(&day) || *hours > 23 || *minutes > 59 || *seconds > 60 {
        return None;
    }
    let since_epoch =
        days_from_civil(year, month, day) * 86_400 + hours * 3600 + minutes * 60 + seconds;
    let since_epoch = u64::try_from(since_epoch).ok()?;
    Some(UNIX_EPOCH + Duration::from_secs(since_epoch))
}

/// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_index = (month + 9) % 12;
    let day_of_year = (153 * month_index + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_reads_delta_seconds() {
        assert_eq!(
            parse_retry_after(" 7 ", SystemTime::now()),
            Some(Duration::from_secs(7))
        );
        assert_eq!(parse_retry_after("", SystemTime::now()), None);
        assert_eq!(parse_retry_after("-3", SystemTime::now()), None);
        assert_eq!(parse_retry_after("soon", SystemTime::now()), None);
    }

    #[test]
    fn retry_after_reads_http_dates_against_now() {
        // 1994-11-06T08:49:37Z is 784111777 seconds after the epoch.
        let now = UNIX_EPOCH + Duration::from_secs(784_111_777 - 90);
        let wait = parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", now);
        assert_eq!(wait, Some(Duration::from_secs(90)));
        let later = UNIX_EPOCH + Duration::from_secs(784_111_777 + 5);
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", later),
            Some(Duration::ZERO)
        );
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:37 PST", now),
            None
        );
        assert_eq!(
            parse_retry_after("Sun, 06 Foo 1994 08:49:37 GMT", now),
            None
        );
    }

    #[test]
    fn backoff_stays_under_its_ceiling() {
        let policy = RetryPolicy::default();
        for attempt in 0..40 {
            let ceiling = (policy.base_delay * 2u32.saturating_pow(attempt)).min(policy.max_delay);
            assert!(policy.backoff(attempt) <= ceiling);
        }
        // Full jitter: the waits are spread out, not one fixed value.
        let waits: std::collections::HashSet<_> = (0..20).map(|_| policy.backoff(3)).collect();
        assert!(waits.len() > 1);
    }

    #[test]
    fn only_idempotent_verbs_and_passing_failures_are_retried() {
        assert!(is_idempotent(&reqwest::Method::GET));
        assert!(is_idempotent(&reqwest::Method::DELETE));
        assert!(is_idempotent(&reqwest::Method::PUT));
        assert!(!is_idempotent(&reqwest::Method::POST));
        assert!(!is_idempotent(&reqwest::Method::PATCH));
        for status in [429, 500, 502, 503, 504] {
            assert!(is_retry_status(status));
        }
        for status in [400, 401, 404, 409, 422, 501] {
            assert!(!is_retry_status(status));
        }
    }
}
