//! The text of percentages and thresholds, one place for each style the
//! tables and reports print, so that the same figure reads the same way.

/// A fraction as a percent to two places without the sign (`12.34`), for
/// columns headed `%`; `-` when undefined (NaN).
pub fn percent(x: f64) -> String {
    if x.is_nan() {
        "-".into()
    } else {
        format!("{:.2}", 100.0 * x)
    }
}

/// A fraction as a percent to two places with the sign (`12.34%`); `-`
/// when undefined (NaN).
pub fn percent_sign(x: f64) -> String {
    if x.is_nan() {
        "-".into()
    } else {
        format!("{:.2}%", 100.0 * x)
    }
}

/// As [`percent_sign`], but `-` for infinities too: reports never show
/// `inf%`.
pub fn percent_sign_finite(x: f64) -> String {
    if x.is_finite() {
        format!("{:.2}%", 100.0 * x)
    } else {
        "-".into()
    }
}

/// A threshold for tables: rounded to four places (grid steps such as
/// 0.05 * 6 carry float noise), whole numbers without decimals: `3`,
/// `0.3`, `0.1234`.
pub fn threshold(t: f64) -> String {
    let t = (t * 1e4).round() / 1e4;
    if t.fract() == 0.0 {
        format!("{t:.0}")
    } else {
        format!("{t}")
    }
}

/// A threshold as typed in the workbench: whole numbers bare, others to
/// four places with trailing zeros dropped.
pub fn threshold_as_typed(t: f64) -> String {
    if t.fract() == 0.0 {
        format!("{t:.0}")
    } else {
        let s = format!("{t:.4}");
        s.trim_end_matches('0').to_string()
    }
}

/// A threshold as it reads in an experiment file, for chart labels: to
/// three places, trailing zeros and point dropped: `3`, `0.55`.
pub fn threshold_short(t: f64) -> String {
    let s = format!("{t:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// `text` cut to its first `max` characters, saying how much was left
/// out: input echoed in an error stays one line even when a field (or,
/// past an unterminated quote, the rest of a file) is megabytes long.
pub fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((end, _)) => format!("{}… ({} more bytes)", &text[..end], text.len() - end),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percents_have_two_places_and_a_dash_when_undefined() {
        assert_eq!(percent(0.1234), "12.34");
        assert_eq!(percent(f64::NAN), "-");
        assert_eq!(percent_sign(0.5), "50.00%");
        assert_eq!(percent_sign(f64::NAN), "-");
        assert_eq!(percent_sign(f64::INFINITY), "inf%");
        assert_eq!(percent_sign_finite(1.0), "100.00%");
        assert_eq!(percent_sign_finite(f64::INFINITY), "-");
        assert_eq!(percent_sign_finite(f64::NAN), "-");
    }

    #[test]
    fn thresholds_read_as_written() {
        assert_eq!(threshold(3.0), "3");
        assert_eq!(threshold(0.05 * 6.0), "0.3");
        assert_eq!(threshold(0.123_46), "0.1235");
        assert_eq!(threshold_as_typed(3.0), "3");
        assert_eq!(threshold_as_typed(0.25), "0.25");
        assert_eq!(threshold_short(3.0), "3");
        assert_eq!(threshold_short(0.55), "0.55");
        assert_eq!(threshold_short(0.1234), "0.123");
    }

    #[test]
    fn clip_keeps_short_text_and_cuts_long_text_on_a_character() {
        assert_eq!(clip("短い", 80), "短い");
        let long = "字".repeat(100);
        let cut = clip(&long, 80);
        assert!(cut.starts_with(&"字".repeat(80)), "{cut}");
        assert!(cut.ends_with("… (60 more bytes)"), "{cut}");
    }
}
