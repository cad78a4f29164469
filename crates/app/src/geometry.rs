//! Pure geometry for the graph: where nodes go, where a link's visible segment runs, and which
//! links a drawn stroke crosses. No browser types here, so it is unit-tested natively and on wasm.
use splitbrain_sim::NodeId;

/// A point in SVG user units.
#[derive(Clone, Copy, PartialEq, Debug, Default)]
pub struct Pt {
    /// x.
    pub x: f64,
    /// y.
    pub y: f64,
}

impl Pt {
    /// A point.
    pub const fn new(x: f64, y: f64) -> Pt {
        Pt { x, y }
    }
    /// Linear interpolation from `self` to `o` at `t` in 0..=1.
    pub fn lerp(self, o: Pt, t: f64) -> Pt {
        Pt::new(self.x + (o.x - self.x) * t, self.y + (o.y - self.y) * t)
    }
    /// Distance.
    pub fn dist(self, o: Pt) -> f64 {
        ((self.x - o.x).powi(2) + (self.y - o.y).powi(2)).sqrt()
    }
}

/// An axis-aligned box centred on `c`.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct BoxShape {
    /// Centre.
    pub c: Pt,
    /// Half width.
    pub hw: f64,
    /// Half height.
    pub hh: f64,
}

impl BoxShape {
    /// True when the two boxes overlap or come closer than `gap` on both axes.
    pub fn overlaps(&self, o: &BoxShape, gap: f64) -> bool {
        (self.c.x - o.c.x).abs() < self.hw + o.hw + gap && (self.c.y - o.c.y).abs() < self.hh + o.hh + gap
    }
    /// Inside the rectangle [0,w]×[0,h] with a margin.
    pub fn inside(&self, w: f64, h: f64, margin: f64) -> bool {
        self.c.x - self.hw >= margin
            && self.c.y - self.hh >= margin
            && self.c.x + self.hw <= w - margin
            && self.c.y + self.hh <= h - margin
    }
    /// Where the segment from the centre towards `to` leaves the box.
    pub fn exit_towards(&self, to: Pt) -> Pt {
        let (dx, dy) = (to.x - self.c.x, to.y - self.c.y);
        if dx == 0.0 && dy == 0.0 {
            return self.c;
        }
        let tx = if dx != 0.0 { self.hw / dx.abs() } else { f64::INFINITY };
        let ty = if dy != 0.0 { self.hh / dy.abs() } else { f64::INFINITY };
        let t = tx.min(ty).min(1.0);
        Pt::new(self.c.x + dx * t, self.c.y + dy * t)
    }
}

/// Width of the drawing in user units.
pub const VIEW_W: f64 = 710.0;
/// Height of the drawing in user units.
pub const VIEW_H: f64 = 480.0;
/// Broker box half width / half height.
pub const BROKER_HW: f64 = 62.0;
/// Broker box half height.
pub const BROKER_HH: f64 = 36.0;
/// ZooKeeper box half sizes.
pub const ZK_HW: f64 = 68.0;
/// ZooKeeper box half height.
pub const ZK_HH: f64 = 26.0;
/// KRaft voter box half sizes.
pub const VOTER_HW: f64 = 46.0;
/// Voter box half height.
pub const VOTER_HH: f64 = 19.0;
/// ZooKeeper ensemble server box half sizes (3 servers).
pub const ZKS_HW: f64 = 40.0;
/// Ensemble server box half height.
pub const ZKS_HH: f64 = 18.0;
/// Ensemble server box half width with 5 servers.
pub const ZKS5_HW: f64 = 34.0;
/// Half sizes of the caption under an ensemble (`/controller`, `/controller_epoch`).
pub const ZK_CAPTION_HW: f64 = 70.0;
/// Caption half height.
pub const ZK_CAPTION_HH: f64 = 13.0;
/// Client box half sizes.
pub const CLIENT_HW: f64 = 80.0;
/// Client box half height.
pub const CLIENT_HH: f64 = 30.0;

/// Node positions for a cluster.
#[derive(Clone, PartialEq, Debug)]
pub struct Layout {
    /// Every node with its box.
    pub nodes: Vec<(NodeId, BoxShape)>,
    /// With a ZooKeeper ensemble: the caption under the group (`/controller`, `/controller_epoch`).
    pub zk_caption: Option<BoxShape>,
}

/// The part of the drawing to show: `viewBox="x y w h"`.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct ViewBox {
    /// Left.
    pub x: f64,
    /// Top.
    pub y: f64,
    /// Width.
    pub w: f64,
    /// Height.
    pub h: f64,
}

impl Layout {
    /// Brokers on a circle around ZooKeeper; clients on the right, outside the circle. Broker
    /// order is the order given (the first broker at the top, then clockwise).
    pub fn new(brokers: &[i32], clients: &[u32]) -> Layout {
        Self::with_voters(brokers, clients, &[])
    }

    /// As [`Layout::new`]; KRaft controller voters (if any) take ZooKeeper's place in the middle,
    /// as a small triangle (ZooKeeper is not drawn then).
    pub fn with_voters(brokers: &[i32], clients: &[u32], voters: &[u32]) -> Layout {
        Self::with_ensemble(brokers, clients, voters, &[NodeId::ZK])
    }

    /// As [`Layout::with_voters`], with the ZooKeeper servers `zk` (the one standalone server
    /// `zk`, drawn as one box as before, or an ensemble `zk1`…`zk5`, drawn as a small group in
    /// the middle with a caption under it). Unused when there are voters.
    pub fn with_ensemble(brokers: &[i32], clients: &[u32], voters: &[u32], zk: &[NodeId]) -> Layout {
        let n = brokers.len().max(1);
        let cx = 282.0;
        let cy = VIEW_H / 2.0;
        // Radii of the ring (an ellipse uses the wide drawing better): large enough that
        // neighbours on the ring never touch (checked for 1..=9 brokers in the tests).
        let (rx, ry) = match n {
            0..=3 => (175.0, 140.0),
            4..=5 => (185.0, 150.0),
            6..=7 => (190.0, 170.0),
            _ => (214.0, 190.0),
        };
        // An ensemble needs more room in the middle than one box.
        let ensemble: Vec<NodeId> = zk.iter().copied().filter(|z| *z != NodeId::ZK).collect();
        let grow = match (voters.is_empty(), ensemble.len()) {
            (false, _) | (true, 0) => 0.0,
            _ if n >= 8 => 30.0,
            (true, 1..=3) => 40.0,
            _ => 50.0,
        };
        let (rx, ry) = (rx + grow, ry + grow);
        let mut nodes = Vec::new();
        let mut zk_caption = None;
        if voters.is_empty() && ensemble.is_empty() {
            nodes.push((NodeId::ZK, BoxShape { c: Pt::new(cx, cy), hw: ZK_HW, hh: ZK_HH }));
        } else if voters.is_empty() {
            let k = ensemble.len();
            // Three: two side by side, one below (a broker's link to any server then passes
            // clear of the other two boxes with three brokers). Four or five: a ring (a pentagon),
            // so no server–server link runs under another server's box. Wide gaps keep the
            // server–server links long enough to cut.
            let hw = if k <= 3 { ZKS_HW } else { ZKS5_HW };
            let mut bottom: f64 = f64::MIN;
            for (i, z) in ensemble.iter().enumerate() {
                let c = match k {
                    1 | 2 => Pt::new(cx + (i as f64 - (k as f64 - 1.0) / 2.0) * (2.0 * hw + 44.0), cy),
                    3 if i == 2 => Pt::new(cx, cy + 48.0),
                    3 => Pt::new(cx + if i == 0 { -1.0 } else { 1.0 } * (hw + 13.0), cy - 20.0),
                    _ => {
                        // Flat side up, one point down (clear of the brokers up left and right).
                        let a = -core::f64::consts::FRAC_PI_2 + (i as f64 - 0.5) * core::f64::consts::TAU / k as f64;
                        Pt::new(cx + 88.0 * a.cos(), cy - 30.0 + 72.0 * a.sin())
                    }
                };
                bottom = bottom.max(c.y - cy);
                nodes.push((*z, BoxShape { c, hw, hh: ZKS_HH }));
            }
            zk_caption = Some(BoxShape {
                c: Pt::new(cx, cy + bottom + ZKS_HH + 8.0 + ZK_CAPTION_HH),
                hw: ZK_CAPTION_HW,
                hh: ZK_CAPTION_HH,
            });
        } else {
            let k = voters.len();
            for (i, v) in voters.iter().enumerate() {
                // One on top, the others side by side below (up to 3 voters; more go in a row).
                let c = if k <= 3 {
                    match i {
                        0 if k == 3 => Pt::new(cx, cy - 38.0),
                        _ => {
                            let j = if k == 3 { i - 1 } else { i };
                            let row = if k == 3 { 2 } else { k };
                            Pt::new(
                                cx + (j as f64 - (row as f64 - 1.0) / 2.0) * 2.0 * (VOTER_HW + 5.0),
                                cy + if k == 3 { 8.0 } else { 0.0 },
                            )
                        }
                    }
                } else {
                    Pt::new(cx + (i as f64 - (k as f64 - 1.0) / 2.0) * 2.0 * (VOTER_HW + 4.0), cy)
                };
                nodes.push((NodeId::Voter(*v), BoxShape { c, hw: VOTER_HW, hh: VOTER_HH }));
            }
        }
        for (i, b) in brokers.iter().enumerate() {
            // Start at the top and go clockwise (two brokers sit left and right).
            let a = -core::f64::consts::FRAC_PI_2
                + (i as f64) * core::f64::consts::TAU / n as f64
                + if n == 2 { core::f64::consts::FRAC_PI_2 } else { 0.0 };
            let c = Pt::new(cx + rx * a.cos(), cy + ry * a.sin());
            nodes.push((NodeId::Broker(*b), BoxShape { c, hw: BROKER_HW, hh: BROKER_HH }));
        }
        let k = clients.len().max(1) as f64;
        for (j, c) in clients.iter().enumerate() {
            let y = VIEW_H * (j as f64 + 1.0) / (k + 1.0) + if clients.len() == 1 { 150.0 } else { 0.0 };
            let y = y.min(VIEW_H - CLIENT_HH - 6.0);
            nodes.push((
                NodeId::Client(*c),
                BoxShape { c: Pt::new(VIEW_W - CLIENT_HW - 6.0 + grow, y), hw: CLIENT_HW, hh: CLIENT_HH },
            ));
        }
        Layout { nodes, zk_caption }
    }

    /// For a narrow screen (a phone held upright): the metadata store (ZooKeeper, its ensemble or
    /// the KRaft voters) in the middle as in [`Layout::with_ensemble`], the brokers in rows of up
    /// to three above and below it in reading order (a row of three is a shallow V, so its outer
    /// brokers' link passes clear of the middle one), the clients in a row at the bottom. About 450
    /// units wide instead of 780, so a phone draws it at nearly twice the scale.
    pub fn tall(brokers: &[i32], clients: &[u32], voters: &[u32], zk: &[NodeId]) -> Layout {
        let mut l = Self::with_ensemble(&[], &[], voters, zk);
        let (cx, mut up, mut down) = (282.0, f64::MAX, f64::MIN);
        for b in l.nodes.iter().map(|(_, b)| b).chain(l.zk_caption.iter()) {
            up = up.min(b.c.y - b.hh);
            down = down.max(b.c.y + b.hh);
        }
        // Room for the badges above ("holds /controller") and below ("acting controller").
        let gap = 2.0 * BROKER_HH + 34.0;
        let row = |k: usize| -> Vec<(f64, f64)> {
            match k {
                1 => vec![(0.0, 0.0)],
                2 => vec![(-78.0, 0.0), (78.0, 0.0)],
                _ => vec![(-150.0, 0.0), (0.0, 1.0), (150.0, 0.0)],
            }
        };
        let (top, bottom) = brokers.split_at(brokers.len().div_ceil(2));
        let top_rows: Vec<&[i32]> = top.chunks(3).collect();
        let pitch = |r: &[i32]| if r.len() == 3 { gap + 40.0 } else { gap };
        // Top half: the last row sits just above the middle; rows above it go up.
        let mut y = up - 44.0 - BROKER_HH;
        for r in top_rows.iter().rev() {
            for (b, (dx, v)) in r.iter().zip(row(r.len())) {
                // The V of a top row points up (its middle broker is further from the middle).
                l.nodes.push((
                    NodeId::Broker(*b),
                    BoxShape { c: Pt::new(cx + dx, y - 40.0 * v), hw: BROKER_HW, hh: BROKER_HH },
                ));
            }
            y -= pitch(r);
        }
        let mut y = down + 44.0 + BROKER_HH;
        let mut lowest = down;
        for r in bottom.chunks(3) {
            for (b, (dx, v)) in r.iter().zip(row(r.len())) {
                let c = Pt::new(cx + dx, y + 40.0 * v);
                lowest = lowest.max(c.y + BROKER_HH);
                l.nodes.push((NodeId::Broker(*b), BoxShape { c, hw: BROKER_HW, hh: BROKER_HH }));
            }
            y += pitch(r);
        }
        let k = clients.len() as f64;
        for (j, c) in clients.iter().enumerate() {
            let x = cx + (j as f64 - (k - 1.0) / 2.0) * (2.0 * CLIENT_HW + 12.0);
            let c_box = BoxShape { c: Pt::new(x, lowest + 30.0 + CLIENT_HH), hw: CLIENT_HW, hh: CLIENT_HH };
            l.nodes.push((NodeId::Client(*c), c_box));
        }
        l
    }

    /// The bounding box of every node plus a margin (room for the badges above and below the
    /// brokers), so that small clusters are drawn larger.
    pub fn view_box(&self) -> ViewBox {
        let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
        for b in self.nodes.iter().map(|(_, b)| b).chain(self.zk_caption.iter()) {
            x0 = x0.min(b.c.x - b.hw);
            y0 = y0.min(b.c.y - b.hh);
            x1 = x1.max(b.c.x + b.hw);
            y1 = y1.max(b.c.y + b.hh);
        }
        if x0 > x1 {
            return ViewBox { x: 0.0, y: 0.0, w: VIEW_W, h: VIEW_H };
        }
        let (mx, my) = (10.0, 22.0);
        ViewBox { x: x0 - mx, y: y0 - my, w: x1 - x0 + 2.0 * mx, h: y1 - y0 + 2.0 * my }
    }

    /// The box of a node.
    pub fn get(&self, id: NodeId) -> Option<&BoxShape> {
        self.nodes.iter().find(|(n, _)| *n == id).map(|(_, b)| b)
    }

    /// The visible part of the link a–b: from the edge of one box to the edge of the other.
    pub fn link_segment(&self, a: NodeId, b: NodeId) -> Option<(Pt, Pt)> {
        let (ba, bb) = (self.get(a)?, self.get(b)?);
        Some((ba.exit_towards(bb.c), bb.exit_towards(ba.c)))
    }
}

/// `v` with one decimal, without pulling float formatting into the wasm (integer arithmetic).
pub fn f1(v: f64) -> String {
    let n = (v * 10.0).round() as i64;
    let sign = if n < 0 { "-" } else { "" };
    let n = n.unsigned_abs();
    format!("{sign}{}.{}", n / 10, n % 10)
}

fn orient(a: Pt, b: Pt, c: Pt) -> f64 {
    (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)
}

fn on_segment(a: Pt, b: Pt, p: Pt) -> bool {
    p.x >= a.x.min(b.x) - 1e-9 && p.x <= a.x.max(b.x) + 1e-9 && p.y >= a.y.min(b.y) - 1e-9 && p.y <= a.y.max(b.y) + 1e-9
}

/// True when segment p1–p2 and segment q1–q2 share a point (touching counts).
pub fn segments_cross(p1: Pt, p2: Pt, q1: Pt, q2: Pt) -> bool {
    let d1 = orient(q1, q2, p1);
    let d2 = orient(q1, q2, p2);
    let d3 = orient(p1, p2, q1);
    let d4 = orient(p1, p2, q2);
    if ((d1 > 0.0 && d2 < 0.0) || (d1 < 0.0 && d2 > 0.0)) && ((d3 > 0.0 && d4 < 0.0) || (d3 < 0.0 && d4 > 0.0)) {
        return true;
    }
    (d1 == 0.0 && on_segment(q1, q2, p1))
        || (d2 == 0.0 && on_segment(q1, q2, p2))
        || (d3 == 0.0 && on_segment(p1, p2, q1))
        || (d4 == 0.0 && on_segment(p1, p2, q2))
}

/// True when the polyline `stroke` crosses segment a–b anywhere.
pub fn polyline_crosses(stroke: &[Pt], a: Pt, b: Pt) -> bool {
    stroke.windows(2).any(|w| segments_cross(w[0], w[1], a, b))
}

/// Distance from `p` to the segment a–b.
pub fn point_segment_distance(p: Pt, a: Pt, b: Pt) -> f64 {
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let len2 = dx * dx + dy * dy;
    if len2 == 0.0 {
        return p.dist(a);
    }
    let t = (((p.x - a.x) * dx + (p.y - a.y) * dy) / len2).clamp(0.0, 1.0);
    p.dist(Pt::new(a.x + t * dx, a.y + t * dy))
}

/// Which of `links` (by index) a stroke crosses.
pub fn crossed_links(stroke: &[Pt], links: &[(Pt, Pt)]) -> Vec<usize> {
    links.iter().enumerate().filter(|(_, (a, b))| polyline_crosses(stroke, *a, *b)).map(|(i, _)| i).collect()
}

/// The link nearest to `p` within `tolerance` (a click or tap on a link).
pub fn nearest_link(p: Pt, links: &[(Pt, Pt)], tolerance: f64) -> Option<usize> {
    links
        .iter()
        .enumerate()
        .map(|(i, (a, b))| (i, point_segment_distance(p, *a, *b)))
        .filter(|(_, d)| *d <= tolerance)
        .min_by(|x, y| x.1.partial_cmp(&y.1).unwrap_or(core::cmp::Ordering::Equal))
        .map(|(i, _)| i)
}

/// Maps a point in CSS pixels relative to the SVG element's box to user units, for an SVG with
/// `viewBox` `vb` and the default `preserveAspectRatio="xMidYMid meet"`.
pub fn client_to_user(px: f64, py: f64, box_w: f64, box_h: f64, vb: ViewBox) -> Pt {
    if box_w <= 0.0 || box_h <= 0.0 || vb.w <= 0.0 || vb.h <= 0.0 {
        return Pt::new(px, py);
    }
    let s = (box_w / vb.w).min(box_h / vb.h);
    let ox = (box_w - vb.w * s) / 2.0;
    let oy = (box_h - vb.h * s) / 2.0;
    Pt::new(vb.x + (px - ox) / s, vb.y + (py - oy) / s)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn one_decimal() {
        assert_eq!(f1(0.0), "0.0");
        assert_eq!(f1(12.34), "12.3");
        assert_eq!(f1(12.36), "12.4");
        assert_eq!(f1(-0.04), "0.0");
        assert_eq!(f1(-7.25), "-7.3");
        assert_eq!(f1(-0.5), "-0.5");
    }

    #[test]
    fn crossing_segments() {
        let p = |x, y| Pt::new(x, y);
        // An X crosses.
        assert!(segments_cross(p(0., 0.), p(10., 10.), p(0., 10.), p(10., 0.)));
        // Parallel segments do not.
        assert!(!segments_cross(p(0., 0.), p(10., 0.), p(0., 1.), p(10., 1.)));
        // A segment that stops short does not.
        assert!(!segments_cross(p(0., 0.), p(4., 4.), p(0., 10.), p(10., 0.)));
        // Touching at an end counts.
        assert!(segments_cross(p(0., 0.), p(5., 5.), p(0., 10.), p(10., 0.)));
        // Collinear and overlapping counts; collinear and apart does not.
        assert!(segments_cross(p(0., 0.), p(5., 0.), p(3., 0.), p(9., 0.)));
        assert!(!segments_cross(p(0., 0.), p(2., 0.), p(3., 0.), p(9., 0.)));
        // T shape.
        assert!(segments_cross(p(5., -5.), p(5., 5.), p(0., 0.), p(10., 0.)));
    }

    #[test]
    fn polyline_crossing_and_nearest() {
        let links = vec![(Pt::new(0., 0.), Pt::new(100., 0.)), (Pt::new(0., 50.), Pt::new(100., 50.))];
        // A vertical stroke across both.
        let s = [Pt::new(50., -10.), Pt::new(50., 20.), Pt::new(50., 60.)];
        assert_eq!(crossed_links(&s, &links), vec![0, 1]);
        // A stroke that only crosses the first.
        let s = [Pt::new(20., -10.), Pt::new(25., 10.)];
        assert_eq!(crossed_links(&s, &links), vec![0]);
        // A single point crosses nothing.
        assert!(crossed_links(&[Pt::new(50., 1.)], &links).is_empty());
        assert_eq!(nearest_link(Pt::new(50., 4.), &links, 8.0), Some(0));
        assert_eq!(nearest_link(Pt::new(50., 46.), &links, 8.0), Some(1));
        assert_eq!(nearest_link(Pt::new(50., 25.), &links, 8.0), None);
        assert!((point_segment_distance(Pt::new(-3., 4.), Pt::new(0., 0.), Pt::new(10., 0.)) - 5.0).abs() < 1e-9);
    }

    #[test]
    fn layouts_for_3_to_9_brokers_do_not_overlap() {
        for n in 1..=9 {
            let brokers: Vec<i32> = (1..=n).collect();
            let l = Layout::new(&brokers, &[1]);
            assert_eq!(l.nodes.len(), n as usize + 2);
            let vb = l.view_box();
            assert!(vb.w <= VIEW_W + 30.0 && vb.h <= VIEW_H + 45.0, "{n} brokers: view box {vb:?} too large");
            for (i, (a, ba)) in l.nodes.iter().enumerate() {
                assert!(ba.inside(VIEW_W, VIEW_H, 2.0), "{n} brokers: {a} at {:?} leaves the drawing", ba.c);
                for (b, bb) in &l.nodes[i + 1..] {
                    assert!(!ba.overlaps(bb, 6.0), "{n} brokers: {a} and {b} overlap ({:?} vs {:?})", ba.c, bb.c);
                }
            }
            // The same with three KRaft voters in ZooKeeper's place.
            let kl = Layout::with_voters(&brokers, &[1], &[1, 2, 3]);
            assert!(kl.get(NodeId::ZK).is_none());
            for (i, (a, ba)) in kl.nodes.iter().enumerate() {
                assert!(ba.inside(VIEW_W, VIEW_H, 2.0), "{n} brokers (kraft): {a} leaves the drawing");
                for (b, bb) in &kl.nodes[i + 1..] {
                    assert!(
                        !ba.overlaps(bb, 6.0),
                        "{n} brokers (kraft): {a} and {b} overlap ({:?} vs {:?})",
                        ba.c,
                        bb.c
                    );
                }
            }
            // Every broker–ZooKeeper link has a visible stretch long enough to cut.
            for b in &brokers {
                let (p, q) = l.link_segment(NodeId::Broker(*b), NodeId::ZK).unwrap();
                assert!(p.dist(q) > 30.0, "{n} brokers: link b{b}-zk is only {} long", p.dist(q));
            }
        }
    }

    /// The tall (phone) layout: nothing overlaps for 1 to 9 brokers around a standalone server, an
    /// ensemble of 3 or 5, or 3 voters; it is much narrower than the wide one; and every
    /// broker–store link keeps a stretch long enough to cut.
    #[test]
    fn tall_layouts_do_not_overlap_and_are_narrow() {
        for (voters, zk) in
            [(vec![], vec![NodeId::ZK]), (vec![], ensemble(3)), (vec![], ensemble(5)), (vec![1, 2, 3], vec![])]
        {
            for n in 1..=9 {
                let brokers: Vec<i32> = (1..=n).collect();
                let l = Layout::tall(&brokers, &[1], &voters, &zk);
                let mut boxes: Vec<(String, BoxShape)> = l.nodes.iter().map(|(id, b)| (id.to_string(), *b)).collect();
                boxes.extend(l.zk_caption.map(|c| ("caption".to_string(), c)));
                assert_eq!(l.nodes.iter().filter(|(id, _)| id.broker().is_some()).count(), n as usize);
                for (i, (a, ba)) in boxes.iter().enumerate() {
                    for (b, bb) in &boxes[i + 1..] {
                        assert!(!ba.overlaps(bb, 6.0), "tall, {zk:?}/{voters:?}, {n} brokers: {a} and {b} overlap");
                    }
                }
                let vb = l.view_box();
                let wide =
                    Layout::with_ensemble(&brokers, &[1], &voters, if zk.is_empty() { &[NodeId::ZK] } else { &zk })
                        .view_box();
                assert!(vb.w <= 460.0, "tall, {n} brokers: {vb:?} is not narrow");
                if n >= 5 {
                    assert!(vb.w < 0.7 * wide.w, "tall, {n} brokers: {} against {} wide", vb.w, wide.w);
                }
                let store: Vec<NodeId> =
                    if voters.is_empty() { zk.clone() } else { voters.iter().map(|v| NodeId::Voter(*v)).collect() };
                for b in &brokers {
                    for s in &store {
                        let (p, q) = l.link_segment(NodeId::Broker(*b), *s).unwrap();
                        assert!(p.dist(q) > 30.0, "tall, {n} brokers: link b{b}-{s} is only {} long", p.dist(q));
                    }
                }
            }
        }
    }

    /// True when segment p–q crosses the outline of `c`'s box.
    fn under(l: &Layout, p: Pt, q: Pt, c: NodeId) -> bool {
        let bc = l.get(c).unwrap();
        let corners = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
            .map(|(sx, sy)| Pt::new(bc.c.x + sx * bc.hw, bc.c.y + sy * bc.hh));
        (0..4).any(|j| segments_cross(p, q, corners[j], corners[(j + 1) % 4]))
    }

    fn ensemble(k: u8) -> Vec<NodeId> {
        (1..=k).map(NodeId::Zk).collect()
    }

    #[test]
    fn ensembles_of_3_and_5_servers_with_3_to_9_brokers_do_not_overlap() {
        for k in [3u8, 5] {
            for n in 3..=9 {
                let brokers: Vec<i32> = (1..=n).collect();
                let servers = ensemble(k);
                let l = Layout::with_ensemble(&brokers, &[1], &[], &servers);
                assert!(l.get(NodeId::ZK).is_none(), "no standalone box beside an ensemble");
                assert_eq!(l.nodes.len(), n as usize + k as usize + 1);
                let cap = l.zk_caption.expect("a caption under the ensemble");
                if k == 3 && n == 3 {
                    // Three brokers and three servers (seed-incident): no broker–server link runs under another
                    // server's box.
                    for b in &brokers {
                        for z in &servers {
                            let (p, q) = l.link_segment(NodeId::Broker(*b), *z).unwrap();
                            for c in servers.iter().filter(|c| *c != z) {
                                assert!(!under(&l, p, q, *c), "{k}/{n}: link b{b}-{z} runs under {c}");
                            }
                        }
                        // Nor does a broker–broker link.
                        for o in brokers.iter().filter(|o| *o > b) {
                            let (p, q) = l.link_segment(NodeId::Broker(*b), NodeId::Broker(*o)).unwrap();
                            for c in &servers {
                                assert!(!under(&l, p, q, *c), "{k}/{n}: link b{b}-b{o} runs under {c}");
                            }
                        }
                    }
                }
                let mut boxes: Vec<(String, BoxShape)> = l.nodes.iter().map(|(id, b)| (id.to_string(), *b)).collect();
                boxes.push(("caption".into(), cap));
                let vb = l.view_box();
                assert!(vb.w <= VIEW_W + 120.0 && vb.h <= VIEW_H + 90.0, "{k}/{n}: view box {vb:?} too large");
                for (i, (a, ba)) in boxes.iter().enumerate() {
                    for (b, bb) in &boxes[i + 1..] {
                        assert!(
                            !ba.overlaps(bb, 6.0),
                            "{k} servers, {n} brokers: {a} and {b} overlap ({:?} vs {:?})",
                            ba,
                            bb
                        );
                    }
                }
                // Every broker–server link and every server–server link has a stretch long
                // enough to cut by dragging across it.
                for b in &brokers {
                    for z in &servers {
                        let (p, q) = l.link_segment(NodeId::Broker(*b), *z).unwrap();
                        assert!(p.dist(q) > 30.0, "{k}/{n}: link b{b}-{z} is only {} long", p.dist(q));
                    }
                }
                for (i, a) in servers.iter().enumerate() {
                    for b in &servers[i + 1..] {
                        let (p, q) = l.link_segment(*a, *b).unwrap();
                        assert!(p.dist(q) >= 24.0, "{k}/{n}: link {a}-{b} is only {} long", p.dist(q));
                        // ...and runs under no other server's box (it would hide there).
                        for c in servers.iter().filter(|c| *c != a && *c != b) {
                            assert!(!under(&l, p, q, *c), "{k}/{n}: link {a}-{b} runs under {c}");
                        }
                    }
                }
            }
        }
        // The one standalone server keeps its one box and no caption.
        let l = Layout::with_ensemble(&[1, 2, 3], &[1], &[], &[NodeId::ZK]);
        assert_eq!(l, Layout::new(&[1, 2, 3], &[1]));
        assert!(l.zk_caption.is_none() && l.get(NodeId::ZK).is_some());
    }

    #[test]
    fn link_segment_leaves_the_boxes() {
        let l = Layout::new(&[1, 2, 3], &[1]);
        let (p, q) = l.link_segment(NodeId::Broker(1), NodeId::ZK).unwrap();
        let b1 = l.get(NodeId::Broker(1)).unwrap();
        let zk = l.get(NodeId::ZK).unwrap();
        assert!((p.y - (b1.c.y + b1.hh)).abs() < 1e-6, "leaves broker 1 at its bottom edge");
        assert!((q.y - (zk.c.y - zk.hh)).abs() < 1e-6, "enters ZooKeeper at its top edge");
    }

    #[test]
    fn client_pixels_to_user_units() {
        // A box twice the view size, same aspect: plain scaling.
        let vb = ViewBox { x: 0.0, y: 0.0, w: VIEW_W, h: VIEW_H };
        let p = client_to_user(100.0, 50.0, 2.0 * VIEW_W, 2.0 * VIEW_H, vb);
        assert!((p.x - 50.0).abs() < 1e-9 && (p.y - 25.0).abs() < 1e-9);
        // A box wider than the view: letterboxed horizontally.
        let p = client_to_user(VIEW_W, 0.0, 2.0 * VIEW_W, VIEW_H, vb);
        assert!((p.x - VIEW_W / 2.0).abs() < 1e-9 && p.y.abs() < 1e-9);
        // An offset view box.
        let vb = ViewBox { x: 40.0, y: -10.0, w: 200.0, h: 100.0 };
        let p = client_to_user(200.0, 100.0, 400.0, 200.0, vb);
        assert!((p.x - 140.0).abs() < 1e-9 && (p.y - 40.0).abs() < 1e-9);
    }
}
