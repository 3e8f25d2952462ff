//! Keepit markers (seed 004, sections 4.1-4.2 and 5.4): `##keepitX.XX##` in a memory's text
//! says how long the words after it should survive compression.
//!
//! A marker covers the text from its tag to the next marker or the end of the text. Its
//! weight is two decimals from 0.00 to 1.00 (a larger one such as `##keepit1.50##` is clamped
//! to 1.00, as the seed's `validateWeight` does); `##keepit1.00##` pins the text. Whether a
//! marked passage survives a compression depends on the compression's ratio and
//! aggressiveness and on how many sessions ago it was written ([`survival_threshold`]).
//!
//! Tags inside markdown code (fenced or indented blocks, inline code spans) are text, not
//! markers, so documentation about keepit markers can itself be stored. A tag outside code
//! that does not have the `##keepitX.XX##` form (`##keepit.5##`, `##keepit1.5##`,
//! `##keepit0.805##`) is an error naming its position, never silently dropped.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::format::{code_ranges, in_ranges};
use crate::text::CharCounter;
use crate::{Error, Result};

/// Where a tag may start: `##keepit`, in any case.
static TAG_START: LazyLock<Regex> = LazyLock::new(|| compile(r"(?i)##keepit"));
/// A well-formed tag at the start of the haystack; the weight is group 1.
static TAG: LazyLock<Regex> = LazyLock::new(|| compile(r"(?i)\A##keepit([0-9]+\.[0-9]{2})##"));

/// A pattern fixed in the source code.
fn compile(pattern: &str) -> Regex {
    // The two patterns above are literals that compile; a failure is caught by every test.
    Regex::new(pattern).unwrap_or_else(|e| unreachable!("keepit pattern {pattern:?}: {e}"))
}

/// The seed's named weight levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum KeepitLevel {
    /// 1.00: never summarised.
    Pinned,
    /// 0.90: very high decay resistance.
    Critical,
    /// 0.75: high decay resistance.
    Important,
    /// 0.50: moderate decay resistance.
    Notable,
    /// 0.25: low decay resistance.
    Minor,
    /// 0.10: minimal decay resistance.
    Hint,
}

impl KeepitLevel {
    /// Every level, strongest first.
    pub const ALL: [KeepitLevel; 6] =
        [Self::Pinned, Self::Critical, Self::Important, Self::Notable, Self::Minor, Self::Hint];

    /// The level's weight (the seed's `WEIGHT_PRESETS`).
    ///
    /// ```
    /// use memcore::decay::KeepitLevel;
    /// assert_eq!(KeepitLevel::Important.weight(), 0.75);
    /// ```
    pub fn weight(self) -> f64 {
        match self {
            Self::Pinned => 1.00,
            Self::Critical => 0.90,
            Self::Important => 0.75,
            Self::Notable => 0.50,
            Self::Minor => 0.25,
            Self::Hint => 0.10,
        }
    }

    /// The strongest level a weight reaches; `None` below 0.10.
    ///
    /// ```
    /// use memcore::decay::KeepitLevel;
    /// assert_eq!(KeepitLevel::of(0.8), Some(KeepitLevel::Important));
    /// assert_eq!(KeepitLevel::of(0.05), None);
    /// ```
    pub fn of(weight: f64) -> Option<Self> {
        Self::ALL.into_iter().find(|level| weight >= level.weight())
    }
}

/// A weight as the seed's `validateWeight` makes it: clamped to `0.0..=1.0` and rounded to
/// two decimals. NaN is a validation error.
///
/// ```
/// use memcore::decay::validate_weight;
/// assert_eq!(validate_weight(1.5).unwrap(), 1.0);
/// assert_eq!(validate_weight(-0.2).unwrap(), 0.0);
/// assert_eq!(validate_weight(0.805).unwrap(), 0.81);
/// assert!(validate_weight(f64::NAN).is_err());
/// ```
pub fn validate_weight(weight: f64) -> Result<f64> {
    if weight.is_nan() {
        return Err(Error::validation(
            "a keepit weight is NaN",
            "give a weight from 0.00 (hint) to 1.00 (pinned)",
        ));
    }
    Ok((weight.clamp(0.0, 1.0) * 100.0).round() / 100.0)
}

/// One keepit marker found in a text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct KeepitMarker {
    /// Its place among the text's markers, from 0 (what [`set_weight`] takes).
    pub index: usize,
    /// Its weight, 0.00 to 1.00.
    pub weight: f64,
    /// The strongest named level the weight reaches, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<KeepitLevel>,
    /// The marked text, trimmed: from after the tag to the next marker or the end.
    pub content: String,
    /// Where the tag starts, in bytes of UTF-8.
    pub start: usize,
    /// Where the marked text ends (the next tag or the end of the text), in bytes.
    pub end: usize,
    /// [`KeepitMarker::start`] in characters (Unicode scalar values), for string indexing in
    /// Python and other bindings.
    pub start_char: usize,
    /// [`KeepitMarker::end`] in characters.
    pub end_char: usize,
}

impl KeepitMarker {
    /// Whether the marker pins its text (weight 1.00): it survives every compression.
    pub fn is_pinned(&self) -> bool {
        self.weight >= 1.0
    }
}

/// A tag found in a text: where it is, and its weight or why it is not one.
struct FoundTag {
    /// The tag's bytes (`##keepit0.80##`, or the malformed tag up to its end).
    span: Range<usize>,
    /// The weight's bytes within the text, and its value; `None` when malformed.
    weight: Option<(Range<usize>, f64)>,
}

/// The tags of `text` outside markdown code, in order.
fn tags(text: &str) -> Vec<FoundTag> {
    // Markdown is parsed for its code only when a tag may be there (headings are `##` too).
    if !TAG_START.is_match(text) {
        return Vec::new();
    }
    let code = code_ranges(text);
    let in_code = |at: usize| in_ranges(&code, at);
    TAG_START
        .find_iter(text)
        .filter(|found| !in_code(found.start()))
        .map(|found| {
            let at = found.start();
            match TAG.captures(&text[at..]) {
                Some(caps) => {
                    let (whole, group) = (&caps[0], caps.get(1).map_or(0..0, |g| g.range()));
                    let value = caps[1].parse::<f64>().unwrap_or(f64::NAN);
                    let weight = Some((at + group.start..at + group.end, value));
                    FoundTag { span: at..at + whole.len(), weight }
                }
                None => FoundTag { span: at..malformed_end(text, found.end()), weight: None },
            }
        })
        .collect()
}

/// Where a malformed tag starting before `from` ends: after its closing `##` if one follows
/// before any white space, else at the white space.
fn malformed_end(text: &str, from: usize) -> usize {
    let rest = &text[from..];
    let word = rest.find(char::is_whitespace).unwrap_or(rest.len());
    match rest[..word].find("##") {
        Some(close) => from + close + 2,
        None => from + word,
    }
}

/// The keepit markers of `text`, in order.
///
/// A malformed tag outside code is a validation error naming it and its character position.
///
/// ```
/// use memcore::decay::extract_markers;
///
/// let text = "Notes. ##keepit0.80## Use Metal. ##keepit1.00## Never drop the WAL.";
/// let markers = extract_markers(text)?;
/// assert_eq!(markers.len(), 2);
/// assert_eq!((markers[0].weight, markers[0].content.as_str()), (0.8, "Use Metal."));
/// assert!(markers[1].is_pinned());
/// assert!(extract_markers("##keepit.5## oops").is_err());
/// # Ok::<(), memcore::Error>(())
/// ```
pub fn extract_markers(text: &str) -> Result<Vec<KeepitMarker>> {
    Ok(markers_of(text, &well_formed_tags(text)?))
}

/// The tags of `text` outside code, or a validation error naming the first malformed one and
/// its character position.
fn well_formed_tags(text: &str) -> Result<Vec<FoundTag>> {
    let tags = tags(text);
    if let Some(bad) = tags.iter().find(|tag| tag.weight.is_none()) {
        let found = &text[bad.span.clone()];
        return Err(Error::validation(
            format!(
                "malformed keepit marker `{found}` at character {}",
                text[..bad.span.start].chars().count()
            ),
            "write the weight with two decimals from 0.00 to 1.00, e.g. ##keepit0.50##, or put \
             the text in `code` if it is not a marker",
        ));
    }
    Ok(tags)
}

/// The markers of well-formed `tags` of `text`.
fn markers_of(text: &str, tags: &[FoundTag]) -> Vec<KeepitMarker> {
    let mut chars = CharCounter::default();
    tags.iter()
        .enumerate()
        .filter_map(|(index, tag)| {
            let (_, value) = tag.weight.clone()?;
            let end = tags.get(index + 1).map_or(text.len(), |next| next.span.start);
            let weight = validate_weight(value).unwrap_or(0.0);
            Some(KeepitMarker {
                index,
                weight,
                level: KeepitLevel::of(weight),
                content: text[tag.span.end..end].trim().to_owned(),
                start: tag.span.start,
                end,
                start_char: chars.at(text, tag.span.start),
                end_char: chars.at(text, end),
            })
        })
        .collect()
}

/// The well-formed keepit markers of `text`, skipping malformed tags (which still end the
/// marker before them): for untrusted text such as transcripts, where one bad tag must not
/// hide the others.
pub(crate) fn lenient_markers(text: &str) -> Vec<KeepitMarker> {
    markers_of(text, &tags(text))
}

/// Where the tag of `marker` ends in `text` (its marked text starts there).
pub(crate) fn tag_end(text: &str, marker: &KeepitMarker) -> usize {
    let after_name = marker.start + "##keepit".len();
    text.get(after_name..marker.end)
        .and_then(|rest| rest.find("##"))
        .map_or(marker.start, |at| after_name + at + 2)
}

/// Whether `text` pins itself with a `##keepit1.00##` marker outside code.
/// Malformed tags are skipped here, so that one bad tag does not hide a pin.
pub(crate) fn has_pinned_marker(text: &str) -> bool {
    tags(text).iter().any(|tag| tag.weight.as_ref().is_some_and(|(_, weight)| *weight >= 1.0))
}

/// `text` with the weight of marker `index` (from 0) set to `weight` (validated as
/// [`validate_weight`] does), everything else byte for byte as it was (seed 004, 5.4).
///
/// ```
/// use memcore::decay::set_weight;
/// let text = "a ##keepit0.50## b ##KEEPIT0.25## c";
/// assert_eq!(set_weight(text, 1, 0.8)?, "a ##keepit0.50## b ##KEEPIT0.80## c");
/// # Ok::<(), memcore::Error>(())
/// ```
pub fn set_weight(text: &str, index: usize, weight: f64) -> Result<String> {
    let weight = validate_weight(weight)?;
    let tags = well_formed_tags(text)?;
    let Some((range, _)) = tags.get(index).and_then(|tag| tag.weight.clone()) else {
        return Err(Error::validation(
            format!("there is no keepit marker {index}: the text has {}", tags.len()),
            "list the markers first (keepit list); they are numbered from 0",
        ));
    };
    Ok(format!("{}{weight:.2}{}", &text[..range.start], &text[range.end..]))
}

/// How hard a compression squeezes: the seed's base survival threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Aggressiveness {
    /// Base 0.1 (typical of ratios 2-5). Seed 004's compression settings call it `minimal`,
    /// which is read as this.
    #[serde(alias = "minimal")]
    Light,
    /// Base 0.3 (ratios 6-15).
    Moderate,
    /// Base 0.5 (ratios 16 and more).
    Aggressive,
}

impl Aggressiveness {
    /// The compression base of the threshold formula.
    pub fn base(self) -> f64 {
        match self {
            Self::Light => 0.1,
            Self::Moderate => 0.3,
            Self::Aggressive => 0.5,
        }
    }

    /// The seed's level for a compression ratio: light below 6, moderate below 16, else
    /// aggressive.
    ///
    /// ```
    /// use memcore::decay::Aggressiveness;
    /// assert_eq!(Aggressiveness::for_ratio(30.0), Aggressiveness::Aggressive);
    /// ```
    pub fn for_ratio(ratio: f64) -> Self {
        if ratio < 6.0 {
            Self::Light
        } else if ratio < 16.0 {
            Self::Moderate
        } else {
            Self::Aggressive
        }
    }
}

/// Session distances beyond this count as this far (the seed's `max_distance`).
pub const DEFAULT_MAX_DISTANCE: u32 = 10;

/// The weight a marker needs to survive a compression at `ratio`:1 of a session `distance`
/// sessions ago: `base + ratio / 100 * min(distance, max_distance) / max_distance`.
///
/// ```
/// use memcore::decay::{Aggressiveness, survival_threshold};
/// let threshold = survival_threshold(Aggressiveness::Aggressive, 30.0, 5, 10);
/// assert!((threshold - 0.65).abs() < 1e-12);
/// ```
pub fn survival_threshold(
    aggressiveness: Aggressiveness,
    ratio: f64,
    distance: u32,
    max_distance: u32,
) -> f64 {
    let max = max_distance.max(1);
    let distance_factor = f64::from(distance.min(max)) / f64::from(max);
    aggressiveness.base() + ratio / 100.0 * distance_factor
}

/// Weights are two-decimal values; a threshold computed in floating point may land a hair
/// above the weight it equals in decimal (0.5 + 0.30 * 1.0), which must still survive.
const TOLERANCE: f64 = 1e-9;

/// Whether a marker of `weight` survives `threshold`: pinned (1.00) always does, any other
/// when its weight reaches the threshold.
///
/// ```
/// use memcore::decay::survives;
/// assert!(survives(0.80, 0.80));
/// assert!(!survives(0.25, 0.45));
/// assert!(survives(1.0, 7.0));
/// ```
pub fn survives(weight: f64, threshold: f64) -> bool {
    weight >= 1.0 || weight + TOLERANCE >= threshold
}

/// The settings of a decay preview.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PreviewSettings {
    /// The compression ratio (30 for 30:1), at least 1.
    pub ratio: f64,
    /// The aggressiveness; the ratio's level when `None`.
    pub aggressiveness: Option<Aggressiveness>,
    /// Session distances previewed: 1 to this (default 10).
    pub max_distance: u32,
}

impl PreviewSettings {
    /// A validation error unless the ratio is a finite number of at least 1 and the maximum
    /// distance between 1 and 1,000.
    fn validate(&self) -> Result<()> {
        if !(self.ratio.is_finite() && self.ratio >= 1.0) {
            return Err(Error::validation(
                format!("invalid compression ratio {}", self.ratio),
                "give the ratio as a number of at least 1 (30 for 30:1)",
            ));
        }
        if !(1..=1_000).contains(&self.max_distance) {
            return Err(Error::validation(
                format!("max_distance {} is outside 1..=1000", self.max_distance),
                "preview up to 10 sessions back (the seed's default) or another count up to 1000",
            ));
        }
        Ok(())
    }
}

/// The threshold at one session distance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct DistanceThreshold {
    /// Sessions ago, from 1.
    pub distance: u32,
    /// The weight needed to survive.
    pub threshold: f64,
    /// How many of the markers survive.
    pub surviving: usize,
}

/// A marker in a preview: where it is and at which distances it survives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct MarkerPreview {
    /// The marker.
    #[serde(flatten)]
    pub marker: KeepitMarker,
    /// Whether it survives at distance 1, 2, ... `max_distance` (index 0 is distance 1).
    pub survives: Vec<bool>,
    /// The farthest distance it survives at (0: not even one session back).
    pub survives_through: u32,
}

/// What a decay preview answers: for a text and compression settings, which markers survive
/// at each session distance (seed 004's `decay/preview`, over every distance at once).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct KeepitPreview {
    /// The compression ratio.
    pub ratio: f64,
    /// The aggressiveness used (given, or the ratio's level).
    pub aggressiveness: Aggressiveness,
    /// The farthest distance previewed.
    pub max_distance: u32,
    /// The threshold at each distance, 1 to `max_distance`.
    pub thresholds: Vec<DistanceThreshold>,
    /// The markers, in text order.
    pub markers: Vec<MarkerPreview>,
}

/// The decay preview of `text`.
///
/// ```
/// use memcore::decay::{preview, PreviewSettings};
///
/// let text = "##keepit0.80## API decision ##keepit0.25## a hunch";
/// let settings = PreviewSettings { ratio: 30.0, aggressiveness: None, max_distance: 10 };
/// let preview = preview(text, &settings)?;
/// assert_eq!(preview.markers[0].survives_through, 10);
/// assert_eq!(preview.markers[1].survives_through, 0);
/// # Ok::<(), memcore::Error>(())
/// ```
pub fn preview(text: &str, settings: &PreviewSettings) -> Result<KeepitPreview> {
    settings.validate()?;
    let markers = extract_markers(text)?;
    let aggressiveness =
        settings.aggressiveness.unwrap_or_else(|| Aggressiveness::for_ratio(settings.ratio));
    let max = settings.max_distance;
    let threshold_at = |distance| survival_threshold(aggressiveness, settings.ratio, distance, max);
    let thresholds: Vec<DistanceThreshold> = (1..=max)
        .map(|distance| {
            let threshold = threshold_at(distance);
            let surviving = markers.iter().filter(|m| survives(m.weight, threshold)).count();
            DistanceThreshold { distance, threshold, surviving }
        })
        .collect();
    let markers = markers
        .into_iter()
        .map(|marker| {
            let survives: Vec<bool> =
                thresholds.iter().map(|t| survives(marker.weight, t.threshold)).collect();
            // Thresholds grow with distance, so survival is a prefix of the distances.
            let survives_through = survives.iter().take_while(|&&s| s).count() as u32;
            MarkerPreview { marker, survives, survives_through }
        })
        .collect();
    Ok(KeepitPreview {
        ratio: settings.ratio,
        aggressiveness,
        max_distance: max,
        thresholds,
        markers,
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Seed 004, 4.1.3: the five worked examples, (weight, sessions ago, ratio, level).
    #[test]
    fn seed_examples() {
        use Aggressiveness::*;
        let cases = [
            (0.80, 10, 30.0, Aggressive, 0.80, true),
            (0.80, 5, 30.0, Aggressive, 0.65, true),
            (0.25, 10, 15.0, Moderate, 0.45, false),
            (0.50, 7, 5.0, Light, 0.135, true),
        ];
        for (weight, distance, ratio, level, threshold, survive) in cases {
            let computed = survival_threshold(level, ratio, distance, 10);
            assert!((computed - threshold).abs() < 1e-12, "{computed} vs {threshold}");
            assert_eq!(survives(weight, computed), survive, "{weight} at {distance}");
        }
        // Example 5: pinned survives any settings.
        for level in [Light, Moderate, Aggressive] {
            for ratio in [1.0, 30.0, 1e6] {
                assert!(survives(1.0, survival_threshold(level, ratio, 10, 10)));
            }
        }
    }

    #[test]
    fn extracts_like_the_seed_pattern() {
        let text = "Intro ##keepit0.80## Use Metal.\n\n##KeepIt0.25##  a hunch  ";
        let markers = extract_markers(text).unwrap();
        assert_eq!(markers.len(), 2);
        assert_eq!(markers[0].start, 6);
        assert_eq!(markers[0].end, text.find("##KeepIt").unwrap());
        assert_eq!(markers[1].content, "a hunch");
        assert_eq!(markers[1].end, text.len());
        assert_eq!(markers[1].level, Some(KeepitLevel::Minor));
        assert_eq!(markers[0].level, Some(KeepitLevel::Important));
    }

    #[test]
    fn offsets_in_characters_for_bindings() {
        let text = "héllo ✓ ##keepit0.50## naïve";
        let marker = &extract_markers(text).unwrap()[0];
        let chars: Vec<char> = text.chars().collect();
        let tag: String = chars[marker.start_char..marker.start_char + 14].iter().collect();
        assert_eq!(tag, "##keepit0.50##");
        assert_eq!(marker.end_char, chars.len());
        assert_eq!(&text[marker.start..marker.start + 14], "##keepit0.50##");
    }

    #[test]
    fn malformed_markers_are_errors_naming_them() {
        for (text, shown) in [
            ("a ##keepit1.5## b", "##keepit1.5##"),
            ("a ##keepit.5## b", "##keepit.5##"),
            ("a ##keepit0.805## b", "##keepit0.805##"),
            ("a ##keepit## b", "##keepit##"),
            ("a ##keepit0.50 b", "##keepit0.50"),
        ] {
            let err = extract_markers(text).unwrap_err();
            assert!(err.to_string().contains(&format!("`{shown}` at character 2")), "{err}");
            assert!(err.recovery().contains("##keepit0.50##"));
        }
        // Lenient reading keeps the good ones.
        assert!(has_pinned_marker("##keepit.5## x ##keepit1.00## y"));
    }

    #[test]
    fn large_weights_clamp_to_pinned() {
        let markers = extract_markers("##keepit1.50## keep ##keepit0.00## drop").unwrap();
        assert_eq!((markers[0].weight, markers[1].weight), (1.0, 0.0));
        assert!(markers[0].is_pinned());
        assert_eq!(markers[1].level, None);
    }

    #[test]
    fn code_is_not_a_marker() {
        let text = "Write `##keepit0.80##` to mark.\n\n```\n##keepit.5## in a fence\n```\n\n    \
                    ##keepit9## indented\n\n##keepit0.50## real";
        let markers = extract_markers(text).unwrap();
        assert_eq!(markers.len(), 1);
        assert_eq!(markers[0].content, "real");
        assert!(!has_pinned_marker("```\n##keepit1.00##\n```"));
        assert!(has_pinned_marker("x ##keepit1.00## y"));
    }

    #[test]
    fn sets_one_weight_in_place() {
        let text = "é ##keepit0.50## b ##keepit0.25## c";
        assert_eq!(set_weight(text, 0, 1.0).unwrap(), "é ##keepit1.00## b ##keepit0.25## c");
        assert_eq!(set_weight(text, 1, 0.333).unwrap(), "é ##keepit0.50## b ##keepit0.33## c");
        let err = set_weight(text, 2, 0.5).unwrap_err();
        assert!(err.to_string().contains("no keepit marker 2: the text has 2"), "{err}");
        assert!(set_weight(text, 0, f64::NAN).is_err());
        assert!(set_weight("##keepit.5## x", 0, 0.5).is_err());
    }

    #[test]
    fn preview_covers_every_distance() {
        let text = "##keepit1.00## pin ##keepit0.80## api ##keepit0.50## note";
        let settings = PreviewSettings {
            ratio: 30.0,
            aggressiveness: None,
            max_distance: DEFAULT_MAX_DISTANCE,
        };
        let preview = preview(text, &settings).unwrap();
        assert_eq!(preview.aggressiveness, Aggressiveness::Aggressive);
        assert_eq!(preview.thresholds.len(), 10);
        let through: Vec<u32> = preview.markers.iter().map(|m| m.survives_through).collect();
        assert_eq!(through, [10, 10, 0]);
        assert_eq!(preview.thresholds[4].surviving, 2);
        let bad = PreviewSettings { ratio: f64::NAN, ..settings };
        assert!(super::preview(text, &bad).is_err());
        let bad = PreviewSettings { max_distance: 0, ..settings };
        assert!(super::preview(text, &bad).is_err());
    }

    proptest! {
        #[test]
        fn threshold_grows_with_distance_ratio_and_level(
            ratio in 1.0..200.0f64, d in 0u32..30, extra in 0u32..30,
        ) {
            use Aggressiveness::*;
            for level in [Light, Moderate, Aggressive] {
                let near = survival_threshold(level, ratio, d, 10);
                prop_assert!(survival_threshold(level, ratio, d + extra, 10) >= near);
                prop_assert!(survival_threshold(level, ratio * 2.0, d, 10) >= near);
            }
            let t = |level| survival_threshold(level, ratio, d, 10);
            prop_assert!(t(Light) <= t(Moderate) && t(Moderate) <= t(Aggressive));
        }

        #[test]
        fn validated_weights_are_in_range_with_two_decimals(w in -10.0..10.0f64) {
            let v = validate_weight(w).unwrap();
            prop_assert!((0.0..=1.0).contains(&v));
            prop_assert!(((v * 100.0).round() - v * 100.0).abs() < 1e-9);
        }

        #[test]
        fn extraction_never_panics(text in ".{0,200}") {
            let _ = extract_markers(&text);
            let _ = has_pinned_marker(&text);
        }
    }
}
