//! Compression settings (seed 004 section 2.1.3): uniform or tiered, the keepit handling and
//! the session distance, and the tiers each preset stands for.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::decay::{Aggressiveness, DEFAULT_MAX_DISTANCE};
use crate::{Error, Result};

/// Uniform (one ratio for the whole session) or tiered (older parts squeezed harder).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CompressionMode {
    /// One ratio throughout.
    #[default]
    Uniform,
    /// The tiers of a preset (or custom ones).
    Tiered,
}

/// The tier presets of tiered mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TierPreset {
    /// First half 6:1, to 80% 4:1, the rest 2:1; all light.
    Gentle,
    /// First half 15:1 and to 80% 8:1 (moderate), the rest 3:1 (light).
    #[default]
    Standard,
    /// First half 40:1 and to 80% 20:1 (aggressive), the rest 8:1 (moderate).
    Aggressive,
    /// `custom_tiers`.
    Custom,
}

impl TierPreset {
    /// The preset's name in version file names.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Gentle => "gentle",
            Self::Standard => "standard",
            Self::Aggressive => "aggressive",
            Self::Custom => "custom",
        }
    }

    /// The preset's tiers (`None` for custom).
    fn tiers(self) -> Option<Vec<TierConfig>> {
        use Aggressiveness::{Aggressive, Light, Moderate};
        let table: &[(f64, f64, Aggressiveness)] = match self {
            Self::Gentle => &[(50.0, 6.0, Light), (80.0, 4.0, Light), (100.0, 2.0, Light)],
            Self::Standard => &[(50.0, 15.0, Moderate), (80.0, 8.0, Moderate), (100.0, 3.0, Light)],
            Self::Aggressive => {
                &[(50.0, 40.0, Aggressive), (80.0, 20.0, Aggressive), (100.0, 8.0, Moderate)]
            }
            Self::Custom => return None,
        };
        Some(
            table
                .iter()
                .map(|&(end_percent, compaction_ratio, aggressiveness)| TierConfig {
                    end_percent,
                    compaction_ratio,
                    aggressiveness,
                })
                .collect(),
        )
    }
}

/// One tier: the messages up to `end_percent` of the session (after the previous tier's
/// end), compressed at `compaction_ratio`:1.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TierConfig {
    /// Where the tier ends, in percent of the messages (the last tier ends at 100).
    pub end_percent: f64,
    /// The ratio, at least 1.
    pub compaction_ratio: f64,
    /// How hard keepit markers are pressed (`minimal`/`light`, `moderate`, `aggressive`).
    pub aggressiveness: Aggressiveness,
}

/// What a compression does with keepit markers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum KeepitMode {
    /// A marker survives (is kept verbatim) when its weight reaches the survival threshold
    /// of the ratio, aggressiveness and session distance; pinned ones always do.
    #[default]
    Decay,
    /// Every marker survives.
    PreserveAll,
    /// Markers get no special treatment: all are summarised.
    Ignore,
}

/// How to compress a session (seed 004's `CompressionSettings`).
///
/// ```
/// use memcore::session::CompressionSettings;
///
/// let settings = CompressionSettings::uniform(30.0);
/// assert_eq!(settings.tiers()?.len(), 1);
/// assert_eq!(settings.preset_name(), "aggressive");
/// # Ok::<(), memcore::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
#[non_exhaustive]
pub struct CompressionSettings {
    /// `uniform` (default) or `tiered`.
    pub mode: CompressionMode,
    /// Uniform mode: the ratio (default 10 for 10:1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compaction_ratio: Option<f64>,
    /// Uniform mode: the aggressiveness (default: the ratio's level).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aggressiveness: Option<Aggressiveness>,
    /// Tiered mode: the preset (default `standard`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tier_preset: Option<TierPreset>,
    /// Tiered mode with the `custom` preset: the tiers, ending at 100.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub custom_tiers: Vec<TierConfig>,
    /// The summariser used: filled in by memcore (`extractive`, or the callback's name) when
    /// a version is made; a value given in a request is replaced.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub model: String,
    /// Leave out the first messages (a preamble, an old summary).
    pub skip_first_messages: usize,
    /// How keepit markers are treated.
    pub keepit_mode: KeepitMode,
    /// How many sessions ago this one was (1 = the latest, 10 and beyond = old), for the
    /// survival threshold (default 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_distance: Option<u32>,
}

impl Default for CompressionSettings {
    fn default() -> Self {
        Self {
            mode: CompressionMode::Uniform,
            compaction_ratio: None,
            aggressiveness: None,
            tier_preset: None,
            custom_tiers: Vec::new(),
            model: String::new(),
            skip_first_messages: 0,
            keepit_mode: KeepitMode::Decay,
            session_distance: None,
        }
    }
}

/// The uniform ratio when none is given.
const DEFAULT_RATIO: f64 = 10.0;

impl CompressionSettings {
    /// Uniform compression at `ratio`:1.
    pub fn uniform(ratio: f64) -> Self {
        Self { compaction_ratio: Some(ratio), ..Self::default() }
    }

    /// Tiered compression with `preset`.
    pub fn tiered(preset: TierPreset) -> Self {
        Self { mode: CompressionMode::Tiered, tier_preset: Some(preset), ..Self::default() }
    }

    /// The session distance (default 1).
    pub fn distance(&self) -> u32 {
        self.session_distance.unwrap_or(1)
    }

    /// The tiers these settings compress with: one for uniform mode, the preset's (or the
    /// custom ones) for tiered mode. Invalid settings are a validation error.
    pub fn tiers(&self) -> Result<Vec<TierConfig>> {
        if let Some(distance) = self.session_distance
            && !(1..=1_000).contains(&distance)
        {
            return Err(invalid(
                format!("session_distance {distance} is outside 1..=1000"),
                format!("1 is the latest session; {DEFAULT_MAX_DISTANCE} and more count as old"),
            ));
        }
        let tiers = match self.mode {
            CompressionMode::Uniform => {
                if self.tier_preset.is_some() || !self.custom_tiers.is_empty() {
                    return Err(invalid(
                        "tier settings were given for uniform compression",
                        "set mode to tiered, or give compaction_ratio alone",
                    ));
                }
                let ratio = self.compaction_ratio.unwrap_or(DEFAULT_RATIO);
                let aggressiveness =
                    self.aggressiveness.unwrap_or_else(|| Aggressiveness::for_ratio(ratio));
                vec![TierConfig { end_percent: 100.0, compaction_ratio: ratio, aggressiveness }]
            }
            CompressionMode::Tiered => {
                if self.compaction_ratio.is_some() || self.aggressiveness.is_some() {
                    return Err(invalid(
                        "a uniform ratio or aggressiveness was given for tiered compression",
                        "choose a tier_preset (or custom_tiers), or set mode to uniform",
                    ));
                }
                let preset = self.tier_preset.unwrap_or_default();
                match (preset.tiers(), self.custom_tiers.is_empty()) {
                    (Some(tiers), true) => tiers,
                    (None, false) => self.custom_tiers.clone(),
                    (Some(_), false) => {
                        return Err(invalid(
                            "custom_tiers were given with a named preset",
                            "set tier_preset to custom to use custom_tiers",
                        ));
                    }
                    (None, true) => {
                        return Err(invalid(
                            "the custom preset has no custom_tiers",
                            "give custom_tiers: [{end_percent, compaction_ratio, aggressiveness}]",
                        ));
                    }
                }
            }
        };
        check_tiers(&tiers)?;
        Ok(tiers)
    }

    /// The `{mode}-{preset}` part of version file names: the aggressiveness for uniform
    /// mode, the preset for tiered mode.
    pub fn preset_name(&self) -> &'static str {
        match self.mode {
            CompressionMode::Uniform => {
                let ratio = self.compaction_ratio.unwrap_or(DEFAULT_RATIO);
                match self.aggressiveness.unwrap_or_else(|| Aggressiveness::for_ratio(ratio)) {
                    Aggressiveness::Light => "minimal",
                    Aggressiveness::Moderate => "moderate",
                    Aggressiveness::Aggressive => "aggressive",
                }
            }
            CompressionMode::Tiered => self.tier_preset.unwrap_or_default().as_str(),
        }
    }

    /// The mode's name in version file names.
    pub fn mode_name(&self) -> &'static str {
        match self.mode {
            CompressionMode::Uniform => "uniform",
            CompressionMode::Tiered => "tiered",
        }
    }
}

/// A validation error about compression settings.
fn invalid(message: impl Into<String>, recovery: impl Into<String>) -> Error {
    Error::validation(message, recovery)
}

/// Tiers must have ratios of at least 1 and end percents rising to exactly 100.
fn check_tiers(tiers: &[TierConfig]) -> Result<()> {
    let mut previous = 0.0;
    for tier in tiers {
        if !(tier.compaction_ratio.is_finite() && tier.compaction_ratio >= 1.0) {
            return Err(invalid(
                format!("invalid compaction ratio {}", tier.compaction_ratio),
                "give a ratio of at least 1 (30 for 30:1)",
            ));
        }
        if !(tier.end_percent.is_finite()
            && tier.end_percent > previous
            && tier.end_percent <= 100.0)
        {
            return Err(invalid(
                format!(
                    "tier end {}% does not rise above {previous}% within 100%",
                    tier.end_percent
                ),
                "give tiers in order with end_percent rising to 100",
            ));
        }
        previous = tier.end_percent;
    }
    if previous != 100.0 {
        return Err(invalid(
            format!("the last tier ends at {previous}%, not 100%"),
            "end the last tier at 100",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_resolve_to_tiers_or_say_what_is_wrong() {
        let uniform = CompressionSettings::uniform(30.0).tiers().expect("valid");
        assert_eq!(uniform[0].aggressiveness, Aggressiveness::Aggressive);
        assert_eq!(
            CompressionSettings::tiered(TierPreset::Standard).tiers().expect("valid").len(),
            3
        );
        let mut custom = CompressionSettings::tiered(TierPreset::Custom);
        assert!(custom.tiers().is_err());
        custom.custom_tiers = vec![TierConfig {
            end_percent: 90.0,
            compaction_ratio: 5.0,
            aggressiveness: Aggressiveness::Light,
        }];
        assert!(custom.tiers().is_err(), "must end at 100");
        assert!(CompressionSettings::uniform(0.5).tiers().is_err());
        let mixed = CompressionSettings {
            tier_preset: Some(TierPreset::Gentle),
            ..CompressionSettings::uniform(5.0)
        };
        assert!(mixed.tiers().is_err());
        let parsed: CompressionSettings =
            serde_json::from_str(r#"{"compaction_ratio": 30, "aggressiveness": "minimal"}"#)
                .expect("parses");
        assert_eq!(parsed.aggressiveness, Some(Aggressiveness::Light));
        assert_eq!(parsed.preset_name(), "minimal");
    }
}
