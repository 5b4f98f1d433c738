//! The input thread: reads terminal events (crossterm `poll`/`read`) and forwards them to the
//! UI thread over a channel, dropping key-release events. It can be paused while `$EDITOR`
//! owns the terminal, so the two never compete for keystrokes.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender};
use ratatui::crossterm::event::{self, Event, KeyEventKind};

pub struct InputThread {
    stop: Arc<AtomicBool>,
    paused: Arc<AtomicBool>,
    /// The reader says it is parked (no `read` in flight).
    parked: Receiver<()>,
    join: Option<JoinHandle<()>>,
}

const POLL: Duration = Duration::from_millis(50);

impl InputThread {
    pub fn spawn(tx: Sender<Event>) -> InputThread {
        let stop = Arc::new(AtomicBool::new(false));
        let paused = Arc::new(AtomicBool::new(false));
        let (parked_tx, parked) = crossbeam_channel::bounded(1);
        let (s, p) = (stop.clone(), paused.clone());
        let join = std::thread::Builder::new()
            .name("mapscope-input".into())
            .spawn(move || {
                let mut was_paused = false;
                while !s.load(Ordering::SeqCst) {
                    if p.load(Ordering::SeqCst) {
                        if !was_paused {
                            let _ = parked_tx.try_send(());
                            was_paused = true;
                        }
                        std::thread::sleep(Duration::from_millis(10));
                        continue;
                    }
                    was_paused = false;
                    match event::poll(POLL) {
                        Ok(true) => match event::read() {
                            Ok(Event::Key(k)) if k.kind == KeyEventKind::Release => {}
                            Ok(ev) => {
                                if tx.send(ev).is_err() {
                                    return;
                                }
                            }
                            Err(_) => return,
                        },
                        Ok(false) => {}
                        Err(_) => return,
                    }
                }
            })
            .ok();
        InputThread {
            stop,
            paused,
            parked,
            join,
        }
    }

    /// Stops reading (returns once the reader is parked, at most ~one poll interval).
    pub fn pause(&self) {
        while self.parked.try_recv().is_ok() {}
        self.paused.store(true, Ordering::SeqCst);
        let _ = self.parked.recv_timeout(POLL * 4);
    }

    pub fn resume(&self) {
        self.paused.store(false, Ordering::SeqCst);
    }
}

impl Drop for InputThread {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(j) = self.join.take() {
            let _ = j.join();
        }
    }
}
