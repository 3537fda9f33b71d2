// hooke's explicit step on the GPU: the CPU's symplectic Euler (crates/hooke/src/forces.rs,
// solvers/symplectic.rs, step/control.rs, step/anchors.rs) for every world of a batch at
// once. One integration step of h is:
//
//   anchors_before  v = (target − x)/h for nodes on paths        (stage control)
//   springs         F_s on end a of every spring                  (the spring pass)
//   nodes           f = Σ a-run − Σ b-list + fconst − drag·(v − wind)
//                   v' = v + f·(h·w);  x' = x + v'·h;  v = v'·retention;  pinned: v = 0
//   anchors_after   x = target, v = (target − x₀)/h                (stage anchors)
//   tick            the integration-step counter += 1 (indexes the anchors' targets)
//
// Each output is written by one invocation and each node gathers its springs in the
// CPU's kernel order with the CPU's accumulator pattern: no atomics, so a run repeats
// bit for bit on one device. No fused multiply-add is written; a driver may still fuse.

struct Spring { a: u32, b: u32, rest: f32, k: f32, c_axial: f32, c_iso: f32, compress: f32, pad: f32 }
struct World { h: f32, retention: f32, air_drag: f32, pad: f32, wind: vec4<f32> }
struct Counts { nodes: u32, springs: u32, anchors: u32, pad: u32 }

@group(0) @binding(0) var<uniform> counts: Counts;
@group(0) @binding(1) var<storage, read_write> x: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> v: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> springs: array<Spring>;
@group(0) @binding(4) var<storage, read_write> sf: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> node_force: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> node_index: array<vec4<u32>>;
@group(0) @binding(7) var<storage, read> b_pos: array<u32>;
@group(0) @binding(8) var<storage, read> worlds: array<World>;
@group(0) @binding(9) var<storage, read> anchors: array<u32>;
@group(0) @binding(10) var<storage, read> targets: array<vec4<f32>>;
@group(0) @binding(11) var<storage, read_write> clock: array<u32>;
@group(0) @binding(12) var<storage, read_write> anchor_v: array<vec4<f32>>;

const WG: u32 = 256u;

fn item(wid: vec3<u32>, nwg: vec3<u32>, lid: vec3<u32>) -> u32 {
    return (wid.y * nwg.x + wid.x) * WG + lid.x;
}

// F_a = −(k·(ℓ − L) + c_ax·(u·Δv))·u·on − c_iso·on·Δv, on = 0 for a slack rope.
@compute @workgroup_size(256)
fn spring_pass(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_id) lid: vec3<u32>) {
    let p = item(wid, nwg, lid);
    if (p >= counts.springs) { return; }
    let s = springs[p];
    let d = x[s.a].xyz - x[s.b].xyz;
    let dv = v[s.a].xyz - v[s.b].xyz;
    let len = sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
    let inv = select(0.0, 1.0 / len, len > 0.0);
    let stretch = len - s.rest;
    let rel = (d.x * dv.x + d.y * dv.y + d.z * dv.z) * inv;
    let on = select(1.0, s.compress, stretch < 0.0);
    let q = (s.k * stretch + s.c_axial * rel) * on * inv;
    let ci = s.c_iso * on;
    sf[p] = vec4<f32>(-(q * d.x) - ci * dv.x, -(q * d.y) - ci * dv.y, -(q * d.z) - ci * dv.z, 0.0);
}

// Σ of a contiguous run with four accumulators (the CPU's forces::sum_run).
fn sum_run(start: u32, end: u32) -> vec3<f32> {
    var acc0 = vec3<f32>(0.0); var acc1 = vec3<f32>(0.0);
    var acc2 = vec3<f32>(0.0); var acc3 = vec3<f32>(0.0);
    var p = start;
    while (p + 4u <= end) {
        acc0 += sf[p].xyz; acc1 += sf[p + 1u].xyz; acc2 += sf[p + 2u].xyz; acc3 += sf[p + 3u].xyz;
        p += 4u;
    }
    if (p < end) { acc0 += sf[p].xyz; }
    if (p + 1u < end) { acc1 += sf[p + 1u].xyz; }
    if (p + 2u < end) { acc2 += sf[p + 2u].xyz; }
    return (acc0 + acc1) + (acc2 + acc3);
}

// Σ of listed positions with two accumulators (the CPU's forces::sum_at).
fn sum_at(start: u32, end: u32) -> vec3<f32> {
    var acc0 = vec3<f32>(0.0); var acc1 = vec3<f32>(0.0);
    var j = start;
    while (j + 2u <= end) {
        acc0 += sf[b_pos[j]].xyz; acc1 += sf[b_pos[j + 1u]].xyz;
        j += 2u;
    }
    if (j < end) { acc0 += sf[b_pos[j]].xyz; }
    return acc0 + acc1;
}

@compute @workgroup_size(256)
fn node_pass(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_id) lid: vec3<u32>) {
    let i = item(wid, nwg, lid);
    if (i >= counts.nodes) { return; }
    let ix = node_index[i];
    let next = node_index[i + 1u];
    let world = worlds[ix.z];
    let h = world.h;
    let nf = node_force[i];
    let w = nf.w;
    let vi = v[i].xyz;
    let springs_on = sum_run(ix.x, next.x) - sum_at(ix.y, next.y);
    let drag = (vi - world.wind.xyz) * -world.air_drag;
    let f = springs_on + nf.xyz + drag;
    let vn = vi + f * (h * w);
    let xn = x[i].xyz + vn * h;
    var vout = vn * world.retention;
    if ((ix.w & 1u) != 0u) { vout = vec3<f32>(0.0); }
    x[i] = vec4<f32>(xn, 0.0);
    v[i] = vec4<f32>(vout, 0.0);
}

// The anchored nodes' velocity for this integration step: (target − x)/h, kept for after.
@compute @workgroup_size(64)
fn anchors_before(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k = gid.x;
    if (k >= counts.anchors) { return; }
    let node = anchors[k];
    let goal = targets[clock[0] * counts.anchors + k].xyz;
    let h = worlds[node_index[node].z].h;
    let vk = vec4<f32>((goal - x[node].xyz) / h, 0.0);
    v[node] = vk;
    anchor_v[k] = vk;
}

// The anchored nodes exactly on their targets, with the velocity they had during the
// step (the node pass multiplied it by the retention).
@compute @workgroup_size(64)
fn anchors_after(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k = gid.x;
    if (k >= counts.anchors) { return; }
    let node = anchors[k];
    x[node] = vec4<f32>(targets[clock[0] * counts.anchors + k].xyz, 0.0);
    v[node] = anchor_v[k];
}

// The next integration step reads the next row of targets.
@compute @workgroup_size(1)
fn tick() {
    clock[0] = clock[0] + 1u;
}
