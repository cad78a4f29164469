//! The drag stroke over the graph, its own component: a pointer move adds a point and redraws
//! only the polyline, never the graph under it (the graph renders again only when the gesture
//! ends and its commands apply).
use crate::geometry::{f1, Pt};
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// The stroke being drawn, shared by the graph (which feeds it pointer positions) and the
/// [`Stroke`] component (which draws it and registers how to redraw itself).
#[derive(Default)]
pub struct StrokeBus {
    pts: RefCell<Option<Vec<Pt>>>,
    redraw: RefCell<Option<Callback<()>>>,
}

impl StrokeBus {
    /// A new stroke at `p` (a pointer went down).
    pub fn begin(&self, p: Pt) {
        *self.pts.borrow_mut() = Some(vec![p]);
        self.poke();
    }

    /// Adds `p` if a stroke is under way and `p` is at least 1.5 units from its last point.
    pub fn extend(&self, p: Pt) {
        let added = match self.pts.borrow_mut().as_mut() {
            Some(v) if v.last().is_none_or(|l| l.dist(p) >= 1.5) => {
                v.push(p);
                true
            }
            _ => false,
        };
        if added {
            self.poke();
        }
    }

    /// Ends the stroke at `p` and returns its points (none if no stroke was under way).
    pub fn finish(&self, p: Pt) -> Option<Vec<Pt>> {
        let mut pts = self.pts.borrow_mut().take()?;
        pts.push(p);
        self.poke();
        Some(pts)
    }

    fn poke(&self) {
        let cb = self.redraw.borrow().clone();
        if let Some(cb) = cb {
            cb.emit(());
        }
    }
}

/// Props of [`Stroke`].
#[derive(Properties)]
pub struct StrokeProps {
    /// The stroke to draw.
    pub bus: Rc<StrokeBus>,
}

impl PartialEq for StrokeProps {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.bus, &o.bus)
    }
}

/// The polyline of the stroke under way (nothing between gestures).
#[function_component(Stroke)]
pub fn stroke(p: &StrokeProps) -> Html {
    let update = use_force_update();
    {
        let bus = p.bus.clone();
        use_effect_with(Rc::as_ptr(&p.bus) as usize, move |_| {
            *bus.redraw.borrow_mut() = Some(Callback::from(move |_| update.force_update()));
            move || *bus.redraw.borrow_mut() = None
        });
    }
    crate::debug::count_render("stroke");
    let pts = p.bus.pts.borrow();
    match pts.as_deref() {
        Some(v) if v.len() > 1 => {
            let points = v.iter().map(|q| format!("{},{}", f1(q.x), f1(q.y))).collect::<Vec<_>>().join(" ");
            html! { <polyline class="stroke" points={points} /> }
        }
        _ => html! {},
    }
}
