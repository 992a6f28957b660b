use npuzzle_board::Goal;
use npuzzle_pdb::{generate, Partition};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let p = Partition::parse(&args[1], 4, Goal::BlankLast).unwrap();
    let idx: usize = args[2].parse().unwrap();
    let pattern = &p.patterns()[idx];
    let b = generate::build(pattern, |l| eprintln!("{:?}", l));
    let mut hist = [0u64; 256];
    for &v in &b.values {
        hist[v as usize] += 1;
    }
    println!(
        "{} states {} max {} {:?}",
        pattern, b.states, b.max_value, b.elapsed
    );
}
