//! Axis scales: "nice" tick steps (1, 2, 5 times a power of ten) and value-to-pixel mapping.

/// A linear axis from `lo` to `hi` with tick values.
#[derive(Clone, Debug, PartialEq)]
pub struct Scale {
    pub lo: f64,
    pub hi: f64,
    pub ticks: Vec<f64>,
}

impl Scale {
    /// Covers `[min, max]` with about `target` nice ticks; `from_zero` pulls the low end to 0
    /// when all values are positive (bar charts, cycle counts).
    pub fn nice(min: f64, max: f64, target: usize, from_zero: bool) -> Scale {
        let (mut min, mut max) = if min.is_finite() && max.is_finite() {
            (min, max)
        } else {
            (0.0, 1.0)
        };
        if from_zero && min > 0.0 {
            min = 0.0;
        }
        if from_zero && max < 0.0 {
            max = 0.0;
        }
        if max <= min {
            let pad = if min == 0.0 { 1.0 } else { min.abs() * 0.1 };
            min -= pad;
            max += pad;
            if from_zero && min < 0.0 && max > 0.0 && min.abs() < pad * 1.5 {
                min = 0.0;
            }
        }
        let step = nice_step((max - min) / target.max(1) as f64);
        let lo = (min / step).floor() * step;
        let hi = (max / step).ceil() * step;
        let n = ((hi - lo) / step).round() as usize;
        let ticks = (0..=n).map(|i| clean(lo + i as f64 * step)).collect();
        Scale {
            lo: clean(lo),
            hi: clean(hi),
            ticks,
        }
    }

    /// Maps `v` onto `[a, b]` (pixels; `b < a` for a y axis growing upward).
    pub fn map(&self, v: f64, a: f64, b: f64) -> f64 {
        if self.hi == self.lo {
            return a;
        }
        a + (v - self.lo) / (self.hi - self.lo) * (b - a)
    }
}

/// The smallest 1, 2 or 5 times a power of ten that is at least `raw`.
pub fn nice_step(raw: f64) -> f64 {
    if raw.is_nan() || raw <= 0.0 || !raw.is_finite() {
        return 1.0;
    }
    let p = 10f64.powf(raw.log10().floor());
    let f = raw / p;
    let m = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    m * p
}

/// Removes floating-point dust (0.30000000000000004 -> 0.3) from tick values.
fn clean(v: f64) -> f64 {
    let r = (v * 1e9).round() / 1e9;
    if r == 0.0 {
        0.0
    } else {
        r
    }
}

/// A tick label: integers plainly, large values with k/M suffixes, small with few decimals.
pub fn tick_label(v: f64) -> String {
    let a = v.abs();
    if a >= 1e6 && (v / 1e6).fract() == 0.0 {
        format!("{}M", v / 1e6)
    } else if a >= 1e4 && (v / 1e3).fract() == 0.0 {
        format!("{}k", v / 1e3)
    } else if v.fract() == 0.0 {
        format!("{}", v as i64)
    } else {
        let s = format!("{v:.6}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_ticks() {
        assert_eq!(nice_step(0.23), 0.5);
        assert_eq!(nice_step(1.0), 1.0);
        assert_eq!(nice_step(130.0), 200.0);
        let s = Scale::nice(1234.0, 5678.0, 5, true);
        assert_eq!(s.ticks, vec![0.0, 2000.0, 4000.0, 6000.0]);
        let s = Scale::nice(0.1, 0.7, 6, false);
        assert_eq!(s.ticks, vec![0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]);
        let s = Scale::nice(5.0, 5.0, 5, true);
        assert_eq!((s.lo, s.hi), (0.0, 5.0));
        assert_eq!(s.map(3.0, 100.0, 0.0), 40.0);
        let s = Scale::nice(0.0, 0.0, 5, true);
        assert_eq!((s.lo, s.hi), (0.0, 1.0));
    }

    #[test]
    fn labels() {
        assert_eq!(tick_label(20000.0), "20k");
        assert_eq!(tick_label(3_000_000.0), "3M");
        assert_eq!(tick_label(1500.0), "1500");
        assert_eq!(tick_label(0.25), "0.25");
    }
}
