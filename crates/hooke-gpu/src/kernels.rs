//! The compute pipelines of `step.wgsl` and their bind groups, and how one integration
//! step of every world is recorded.

use wgpu::{BindGroup, ComputePass, ComputePipeline};

use crate::Gpu;
use crate::buffers::Buffers;

/// Threads per workgroup of the spring and node kernels (`WG` in step.wgsl).
const WG: u32 = 256;
/// Workgroups per dimension a dispatch may have (WebGPU's minimum limit).
const MAX_GROUPS: u32 = 65_535;

/// One kernel: its pipeline and the bind group of the buffers it reads.
#[derive(Debug)]
struct Kernel {
    pipeline: ComputePipeline,
    bind: BindGroup,
}

/// Every kernel of the step.
#[derive(Debug)]
pub(crate) struct Kernels {
    springs: Kernel,
    nodes: Kernel,
    drift: Kernel,
    surfaces: Kernel,
    muscles: Kernel,
    tear: Kernel,
    anchors_before: Kernel,
    anchors_after: Kernel,
    tick: Kernel,
}

impl Kernels {
    pub(crate) fn new(gpu: &Gpu, b: &Buffers) -> Self {
        let module = gpu
            .device
            .create_shader_module(wgpu::include_wgsl!("step.wgsl"));
        let all = [
            &b.counts,
            &b.x,
            &b.v,
            &b.springs,
            &b.sf,
            &b.node_force,
            &b.node_index,
            &b.b_pos,
            &b.worlds,
            &b.anchors,
            &b.targets,
            &b.clock,
            &b.anchor_v,
            &b.x_old,
            &b.node_contact,
            &b.surfaces,
            &b.accel,
            &b.grids,
            &b.muscle_pos,
            &b.muscle_rest,
            &b.torn,
        ];
        let kernel = |entry: &str, bindings: &[u32]| {
            let pipeline = gpu
                .device
                .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(entry),
                    layout: None,
                    module: &module,
                    entry_point: Some(entry),
                    compilation_options: Default::default(),
                    cache: None,
                });
            let entries: Vec<wgpu::BindGroupEntry> = bindings
                .iter()
                .map(|&i| wgpu::BindGroupEntry {
                    binding: i,
                    resource: all[i as usize].as_entire_binding(),
                })
                .collect();
            let bind = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(entry),
                layout: &pipeline.get_bind_group_layout(0),
                entries: &entries,
            });
            Kernel { pipeline, bind }
        };
        Self {
            springs: kernel("spring_pass", &[0, 1, 2, 3, 4]),
            nodes: kernel("node_pass", &[0, 1, 2, 4, 5, 6, 7, 8, 13, 16]),
            drift: kernel("verlet_drift", &[0, 1, 2, 6, 8, 13, 16]),
            muscles: kernel("muscles", &[0, 3, 11, 18, 19]),
            tear: kernel("tear", &[0, 1, 3, 20]),
            surfaces: kernel("surface_pass", &[0, 1, 2, 6, 8, 11, 13, 14, 15, 17]),
            anchors_before: kernel("anchors_before", &[0, 1, 2, 6, 8, 9, 10, 11, 12]),
            anchors_after: kernel("anchors_after", &[0, 1, 2, 9, 10, 11, 12]),
            tick: kernel("tick", &[11]),
        }
    }

    /// Records one integration step of every world; `last` when it ends a step (and the
    /// springs past their break strain tear).
    pub(crate) fn record_step(&self, pass: &mut ComputePass<'_>, t: &Totals, last: bool) {
        let (nodes, springs, anchors) = (t.nodes, t.springs, t.anchors);
        if t.muscles > 0 {
            dispatch(pass, &self.muscles, t.muscles.div_ceil(64), 1);
        }
        if anchors > 0 {
            dispatch(pass, &self.anchors_before, anchors.div_ceil(64), 1);
        }
        let groups = |items: u32| items.div_ceil(WG);
        if t.verlet {
            let (gx, gy) = grid(groups(nodes));
            dispatch(pass, &self.drift, gx, gy);
        }
        let (gx, gy) = grid(groups(springs));
        dispatch(pass, &self.springs, gx, gy);
        let (gx, gy) = grid(groups(nodes));
        dispatch(pass, &self.nodes, gx, gy);
        if t.surfaces > 0 {
            dispatch(pass, &self.surfaces, gx, gy);
        }
        if anchors > 0 {
            dispatch(pass, &self.anchors_after, anchors.div_ceil(64), 1);
        }
        if t.tears && last {
            let (gx, gy) = grid(groups(springs));
            dispatch(pass, &self.tear, gx, gy);
        }
        if t.timed {
            dispatch(pass, &self.tick, 1, 1);
        }
    }
}

/// The sizes of a batch, all worlds together.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Totals {
    pub nodes: u32,
    pub springs: u32,
    pub anchors: u32,
    /// Surfaces in one row (every world's, placed for one integration step).
    pub surfaces: u32,
    pub muscles: u32,
    /// Whether each integration step reads its own row (anchors or moving colliders).
    pub timed: bool,
    /// Whether any world steps with Verlet (its drift before the spring pass).
    pub verlet: bool,
    /// Whether any spring can tear (the tear kernel at the end of each step).
    pub tears: bool,
}

/// `groups` workgroups as a 2D grid within the per-dimension limit.
fn grid(groups: u32) -> (u32, u32) {
    if groups <= MAX_GROUPS {
        (groups, 1)
    } else {
        (MAX_GROUPS, groups.div_ceil(MAX_GROUPS))
    }
}

fn dispatch(pass: &mut ComputePass<'_>, k: &Kernel, gx: u32, gy: u32) {
    if gx == 0 {
        return;
    }
    pass.set_pipeline(&k.pipeline);
    pass.set_bind_group(0, &k.bind, &[]);
    pass.dispatch_workgroups(gx, gy, 1);
}
