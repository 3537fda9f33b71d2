//! `hooke render` end to end: a GIF with the frames, size and delay asked for, PNG frames,
//! and clear errors.

mod common;

use common::{hooke, text};

fn scratch(name: &str) -> std::path::PathBuf {
    common::scratch_in("render", name)
}

#[test]
fn render_writes_a_gif_with_one_frame_per_k_steps_plus_the_start() {
    let d = scratch("gif");
    let o = hooke(
        &[
            "render", "cloth", "--steps", "60", "--every", "2", "--gif", "out.gif", "--size",
            "320x240",
        ],
        &d,
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let file = std::fs::File::open(d.join("out.gif")).unwrap();
    let mut opts = gif::DecodeOptions::new();
    opts.set_color_output(gif::ColorOutput::RGBA);
    let mut dec = opts.read_info(file).unwrap();
    assert_eq!((dec.width(), dec.height()), (320, 240));
    let mut frames = 0;
    while let Some(f) = dec.read_next_frame().unwrap() {
        // 2 steps of 0.2 ms is below a GIF's 2 cs minimum that browsers honour.
        assert_eq!(f.delay, 2);
        // The first frame is whole; later ones only the rectangle that changed.
        if frames == 0 {
            assert_eq!((f.width, f.height), (320, 240));
        }
        assert!(f.left + f.width <= 320 && f.top + f.height <= 240);
        frames += 1;
    }
    assert_eq!(frames, 31);
    // The `image` crate decodes it too, with the same frames and delays.
    use image::AnimationDecoder;
    let file = std::io::BufReader::new(std::fs::File::open(d.join("out.gif")).unwrap());
    let frames: Vec<image::Frame> = image::codecs::gif::GifDecoder::new(file)
        .unwrap()
        .into_frames()
        .collect_frames()
        .unwrap();
    assert_eq!(frames.len(), 31);
    for f in &frames {
        assert_eq!(f.buffer().dimensions(), (320, 240));
        assert_eq!(f.delay().numer_denom_ms(), (20, 1));
    }
    // Composed, every frame is the picture drawn (as PNG frames), up to the GIF's 256
    // colours: the changed rectangles leave nothing stale behind.
    let o = hooke(
        &[
            "render",
            "cloth",
            "--steps",
            "60",
            "--every",
            "2",
            "--png-dir",
            "png",
            "--size",
            "320x240",
        ],
        &d,
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    for (i, f) in frames.iter().enumerate() {
        let png = hooke_render::Pixmap::load_png(d.join(format!("png/frame_{i:05}.png"))).unwrap();
        let (mut sum, mut worst) = (0u64, 0u8);
        for (a, b) in f.buffer().as_raw().chunks(4).zip(png.data().chunks(4)) {
            for k in 0..3 {
                let e = a[k].abs_diff(b[k]);
                (sum, worst) = (sum + e as u64, worst.max(e));
            }
        }
        let mean = sum as f64 / (320.0 * 240.0 * 3.0);
        assert!(
            mean < 1.0 && worst < 60,
            "frame {i}: mean {mean:.2}, worst {worst}"
        );
    }
}

#[test]
fn render_writes_png_frames_and_rejects_bad_options() {
    let d = scratch("png");
    let o = hooke(
        &[
            "render",
            "string",
            "--steps",
            "20",
            "--every",
            "10",
            "--png-dir",
            "frames",
            "--camera",
            "2d",
            "--style",
            "solid",
        ],
        &d,
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    for i in 0..3 {
        assert!(
            d.join(format!("frames/frame_{i:05}.png")).exists(),
            "frame {i}"
        );
    }
    for (args, expect) in [
        (vec!["--size", "10x10"], "--size"),
        (vec!["--camera", "up"], "--camera"),
        (vec!["--camera", "30,95"], "--camera"),
        (vec!["--style", "oil"], "--style"),
        (vec!["--color", "rainbow"], "--color"),
        (vec!["--every", "0"], "--every"),
    ] {
        let mut all = vec!["render", "string", "--steps", "2"];
        all.extend(args);
        let o = hooke(&all, &d);
        assert_eq!(o.status.code(), Some(2), "{expect}");
        assert!(text(&o.stderr).contains(expect), "{}", text(&o.stderr));
    }
}

/// Width and height of a PNG, from its IHDR chunk.
fn png_size(path: &std::path::Path) -> (u32, u32) {
    let b = std::fs::read(path).unwrap();
    assert_eq!(&b[1..4], b"PNG", "{} is not a PNG", path.display());
    let be = |i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    (be(16), be(20))
}

#[test]
fn run_draws_a_gif_and_plots_its_energy_in_one_pass() {
    let d = scratch("run");
    let o = hooke(
        &[
            "run",
            "cloth",
            "--duration",
            "0.1",
            "--gif",
            "--plot",
            "--out",
            "out",
            "-q",
        ],
        &d,
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(d.join("out/cloth.gif").exists());
    assert_eq!(png_size(&d.join("out/energy.png")), (1000, 600));
    // hooke plot on its own, and on a file that is not an energy.csv.
    let o = hooke(&["plot", "out/energy.csv", "-o", "e.png"], &d);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(png_size(&d.join("e.png")), (1000, 600));
    std::fs::write(d.join("bad.csv"), "a,b\n1,2\n").unwrap();
    let o = hooke(&["plot", "bad.csv"], &d);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("not an energy.csv"),
        "{}",
        text(&o.stderr)
    );
}

/// Frames in a GIF.
fn gif_frames(path: &std::path::Path) -> (usize, u16) {
    let mut dec = gif::DecodeOptions::new()
        .read_info(std::fs::File::open(path).unwrap())
        .unwrap();
    let (mut n, mut delay) = (0, 0);
    while let Some(f) = dec.read_next_frame().unwrap() {
        n += 1;
        delay = f.delay;
    }
    (n, delay)
}

/// `hooke render RUN_DIR` redraws the saved trajectory: the run's final.json is changed
/// so that simulating it would diverge at once (explicit Euler at a 1 s step), and the
/// redraw still succeeds with one frame per saved frame — no step ran.
#[test]
fn render_redraws_a_saved_run_without_simulating() {
    let d = scratch("redraw");
    let run = hooke(
        &[
            "run", "cloth", "--steps", "40", "--every", "4", "-q", "-o", "r",
        ],
        &d,
    );
    assert!(run.status.success(), "{}", text(&run.stderr));
    let path = d.join("r/final.json");
    let mut scene: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    scene["settings"]["integrator"] = "explicit-euler".into();
    scene["settings"]["dt"] = 1.0.into();
    std::fs::write(&path, scene.to_string()).unwrap();
    let o = hooke(
        &["render", "r", "--every", "1", "--size", "64x48", "-q"],
        &d,
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("nothing simulated"),
        "{}",
        text(&o.stdout)
    );
    // 40 steps, a frame every 4 and the start: 11 frames, 4 × 0.2 ms apart (the GIF's
    // 2 cs minimum).
    assert_eq!(gif_frames(&d.join("r/cloth.gif")), (11, 2));
    let manifest = std::fs::read_to_string(d.join("r/run.json")).unwrap();
    assert!(
        manifest.contains("cloth.gif"),
        "the picture joins the manifest: {manifest}"
    );

    let o = hooke(&["render", "r", "--steps", "5"], &d);
    assert_eq!(
        o.status.code(),
        Some(2),
        "a saved run is not simulated again"
    );
    std::fs::remove_file(d.join("r/trajectory.npy")).unwrap();
    let o = hooke(&["render", "r"], &d);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("--every"), "{}", text(&o.stderr));
}
