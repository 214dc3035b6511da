//! The Exactly-Once Playground's browser entry point.

fn main() {
    eos_web::start();
}
