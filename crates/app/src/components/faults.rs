//! Process and operator faults, just below the step controls: crash or restart a broker (or a KRaft voter),
//! reset a broker's TCP connection to its ZooKeeper server (a network blip), restart the consumer,
//! delete `/controller` as an operator would. Links are cut on the graph itself; these are the
//! faults a stroke cannot express. Each button sends one core `Command`.
use splitbrain_sim::ids::NodeKind;
use splitbrain_sim::view::View;
use splitbrain_sim::{Command, NodeId};
use std::rc::Rc;
use yew::prelude::*;

/// Props of [`FaultBar`].
#[derive(Properties, PartialEq)]
pub struct FaultBarProps {
    /// The state shown.
    pub view: Rc<View>,
    /// Receives the command of a pressed button.
    pub on_commands: Callback<Vec<Command>>,
}

fn button(
    label: String,
    aria: String,
    testid: String,
    disabled: bool,
    cmd: Command,
    cb: &Callback<Vec<Command>>,
) -> Html {
    let cb = cb.clone();
    html! {
        <button class="small-btn" {disabled} aria-label={aria} data-testid={testid}
            onclick={Callback::from(move |_: MouseEvent| cb.emit(vec![cmd.clone()]))}>{label}</button>
    }
}

/// The fault buttons, one group per node.
#[function_component(FaultBar)]
pub fn fault_bar(p: &FaultBarProps) -> Html {
    let cb = &p.on_commands;
    let processes = p.view.nodes.iter().filter(|n| matches!(n.kind, NodeKind::Broker | NodeKind::Voter)).map(|n| {
        let id = n.id;
        html! {
            <span class="fault-group" role="group" aria-label={format!("{} process", n.label)}>
                <span class="fault-node">{id.to_string()}</span>
                {button("crash".into(), format!("Crash {} (kill -9)", n.label), format!("crash-{id}"), !n.alive, Command::Crash { node: id }, cb)}
                {button(if n.alive { "bounce".into() } else { "start".into() },
                    if n.alive { format!("Restart {} (a fast bounce: new process, new session)", n.label) } else { format!("Start {} again", n.label) },
                    format!("restart-{id}"), false, Command::Restart { node: id }, cb)}
                // ZooKeeper modes only: the core's view names the server this broker's client is
                // connected to (or tries next); KRaft brokers have none, so no button.
                if let Some(server) = n.zk_server {
                    {button("reset ZK conn".into(),
                        format!("Reset {}'s ZooKeeper connection (the TCP connection to {server}, as a network blip would)", n.label),
                        format!("reset-{id}"), !n.alive, Command::Reset { a: id, b: server }, cb)}
                }
            </span>
        }
    });
    let clients = p.view.nodes.iter().filter(|n| n.kind == NodeKind::Client).map(|n| {
        let id = n.id;
        button(
            format!("restart {id}"),
            format!("Restart consumer {} (it looks its coordinator up again)", n.label),
            format!("restart-{id}"),
            false,
            Command::RestartConsumer { node: id },
            cb,
        )
    });
    let zk = p.view.nodes.iter().any(|n| matches!(n.id, NodeId::Zk(_)));
    html! {
        <div class="fault-bar small" role="group" aria-label="Process and operator faults" data-testid="fault-bar">
            <span class="dim">{"faults:"}</span>
            { for processes }
            { for clients }
            if zk {
                {button("delete /controller".into(),
                    "Delete /controller in ZooKeeper, as an operator forcing a controller move would".into(),
                    "delete-controller".into(), p.view.zk_controller.is_none(), Command::DeleteController, cb)}
            }
        </div>
    }
}
