fn main() {
    std::process::exit(mapscope::cli::main());
}
