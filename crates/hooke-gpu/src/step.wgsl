// hooke's explicit step on the GPU: the CPU's symplectic Euler (crates/hooke/src/forces.rs,
// solvers/symplectic.rs, step/control.rs, step/anchors.rs) for every world of a batch at
// once. One integration step of h is:
//
//   muscles         muscles' springs take this moment's rest length (stage muscles)
//   anchors_before  v = (target − x)/h for nodes on paths        (stage control)
//   verlet_drift    Verlet worlds: v += a·h/2; x += v·h
//   springs         F_s on end a of every spring                  (the spring pass)
//   nodes           f = Σ a-run − Σ b-list + fconst − drag·(v − wind)
//                   v' = v + f·(h·w);  x' = x + v'·h;  v = v'·retention;  pinned: v = 0
//                   (Verlet worlds: a = f·w; v = (v + a·h/2)·retention)
//   surfaces        free nodes against the ground and the colliders  (stage contacts)
//   anchors_after   x = target, v = (target − x₀)/h                (stage anchors)
//   tear            at the end of a step: springs past their break strain stop pulling
//   tick            the integration-step counter += 1 (indexes the anchors' targets and
//                   the colliders placed for each step)
//
// Each output is written by one invocation and each node gathers its springs in the
// CPU's kernel order with the CPU's accumulator pattern: no atomics, so a run repeats
// bit for bit on one device. No fused multiply-add is written; a driver may still fuse.

// limit: 1 + break strain, or 0 for a spring that never tears.
struct Spring { a: u32, b: u32, rest: f32, k: f32, c_axial: f32, c_iso: f32, compress: f32, limit: f32 }
struct World {
    h: f32, retention: f32, air_drag: f32, threshold: f32, wind: vec4<f32>,
    surf_start: u32, surf_count: u32, verlet: u32, pad1: u32,
}
// timed: 1 when the clock ticks (anchors or moving colliders); contacts: 1 when the node
// pass keeps the positions at the start of the step for the surface pass.
struct Counts {
    nodes: u32, springs: u32, anchors: u32, surfaces: u32,
    timed: u32, contacts: u32, muscles: u32, pad1: u32,
}
struct Surface {
    kind: u32, nx: u32, nz: u32, p0: u32,
    grid: vec4<u32>,
    a: vec4<f32>, b: vec4<f32>, ax0: vec4<f32>, ax1: vec4<f32>, ax2: vec4<f32>,
    velocity: vec4<f32>, material: vec4<f32>, bound: vec4<f32>,
}
struct NodeContact {
    radius: f32, forward: f32, backward: f32, free: u32,
    forward_node: i32, backward_node: i32, p0: u32, p1: u32,
}

@group(0) @binding(0) var<uniform> counts: Counts;
@group(0) @binding(1) var<storage, read_write> x: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> v: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> springs: array<Spring>;
@group(0) @binding(4) var<storage, read_write> sf: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> node_force: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> node_index: array<vec4<u32>>;
@group(0) @binding(7) var<storage, read> b_pos: array<u32>;
@group(0) @binding(8) var<storage, read> worlds: array<World>;
@group(0) @binding(9) var<storage, read> anchors: array<u32>;
@group(0) @binding(10) var<storage, read> targets: array<vec4<f32>>;
@group(0) @binding(11) var<storage, read_write> clock: array<u32>;
@group(0) @binding(12) var<storage, read_write> anchor_v: array<vec4<f32>>;
@group(0) @binding(13) var<storage, read_write> x_old: array<vec4<f32>>;
@group(0) @binding(14) var<storage, read> node_contact: array<NodeContact>;
@group(0) @binding(15) var<storage, read> surfaces: array<Surface>;
@group(0) @binding(16) var<storage, read_write> accel: array<vec4<f32>>;
@group(0) @binding(17) var<storage, read> grids: array<f32>;
@group(0) @binding(18) var<storage, read> muscle_pos: array<u32>;
@group(0) @binding(19) var<storage, read> muscle_rest: array<f32>;
@group(0) @binding(20) var<storage, read_write> torn: array<u32>;

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
    if (world.verlet != 0u) {
        // Velocity Verlet's second kick: a = f·w; v = (v + a·h/2)·retention.
        let a = f * w;
        accel[i] = vec4<f32>(a, 0.0);
        var vk = (vi + a * (h * 0.5)) * world.retention;
        if ((ix.w & 1u) != 0u) { vk = vec3<f32>(0.0); }
        v[i] = vec4<f32>(vk, 0.0);
        return;
    }
    let vn = vi + f * (h * w);
    let xi = x[i];
    if (counts.contacts != 0u) { x_old[i] = xi; }
    let xn = xi.xyz + vn * h;
    var vout = vn * world.retention;
    if ((ix.w & 1u) != 0u) { vout = vec3<f32>(0.0); }
    x[i] = vec4<f32>(xn, 0.0);
    v[i] = vec4<f32>(vout, 0.0);
}

// Velocity Verlet's first kick and drift: v += a·h/2; x += v·h (Verlet worlds only).
@compute @workgroup_size(256)
fn verlet_drift(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_id) lid: vec3<u32>) {
    let i = item(wid, nwg, lid);
    if (i >= counts.nodes) { return; }
    let world = worlds[node_index[i].z];
    if (world.verlet == 0u) { return; }
    let h = world.h;
    let xi = x[i];
    if (counts.contacts != 0u) { x_old[i] = xi; }
    let vi = v[i].xyz + accel[i].xyz * (h * 0.5);
    v[i] = vec4<f32>(vi, 0.0);
    x[i] = vec4<f32>(xi.xyz + vi * h, 0.0);
}

// ---- Contacts with the ground and the colliders (the CPU's contact/surface.rs and
// contact/respond.rs, in the same order and with the same sums).

// material: kinetic and static roughness, restitution (the terrain's vary over it).
struct Hit { phi: f32, normal: vec3<f32>, material: vec3<f32> }

fn len3(d: vec3<f32>) -> f32 { return sqrt(d.x * d.x + d.y * d.y + d.z * d.z); }
fn dot3(a: vec3<f32>, b: vec3<f32>) -> f32 { return a.x * b.x + a.y * b.y + a.z * b.z; }

// Distance from p to a ball of radius r around c, and the outward normal.
fn ball(p: vec3<f32>, c: vec3<f32>, r: f32) -> Hit {
    let d = p - c;
    let l = len3(d);
    if (l > 0.0) { return Hit(l - r, d / l, vec3<f32>(0.0)); }
    return Hit(-r, vec3<f32>(0.0, 1.0, 0.0), vec3<f32>(0.0));
}

fn box_distance(p: vec3<f32>, s: Surface) -> Hit {
    let d = p - s.a.xyz;
    let axes = array<vec3<f32>, 3>(s.ax0.xyz, s.ax1.xyz, s.ax2.xyz);
    let local = vec3<f32>(dot3(axes[0], d), dot3(axes[1], d), dot3(axes[2], d));
    let q = abs(local) - s.b.xyz;
    let sign = select(vec3<f32>(1.0), vec3<f32>(-1.0), local < vec3<f32>(0.0));
    if (q.x > 0.0 || q.y > 0.0 || q.z > 0.0) {
        let o = max(q, vec3<f32>(0.0));
        let l = len3(o);
        let n = axes[0] * (o.x * sign.x) + axes[1] * (o.y * sign.y) + axes[2] * (o.z * sign.z);
        return Hit(l, n / l, vec3<f32>(0.0));
    }
    // Inside: out through the nearest face (the last of equals, as the CPU's max_by).
    var k = 0u;
    if (q.y >= q[k]) { k = 1u; }
    if (q.z >= q[k]) { k = 2u; }
    return Hit(q[k], axes[k] * sign[k], vec3<f32>(0.0));
}

// ---- The terrain (the CPU's Terrain::locate, bilinear, height and hit).

// Cell and fraction along one axis of `cells` + 1 vertices, clamped so the edge heights
// continue outside; and whether the coordinate is inside.
struct Cell { i: u32, f: f32, inside: bool }

fn locate(coord: f32, spacing: f32, size: u32) -> Cell {
    let u = coord / spacing;
    let cells = f32(size - 1u);
    let inside = u >= 0.0 && u <= cells;
    let uc = clamp(u, 0.0, cells);
    let cell = min(u32(floor(uc)), size - 2u);
    return Cell(cell, uc - f32(cell), inside);
}

fn g(at: u32, nx: u32, i: u32, j: u32) -> f32 { return grids[at + j * nx + i]; }

fn bilinear(at: u32, one: bool, nx: u32, c: Cell, d: Cell) -> f32 {
    if (one) { return grids[at]; }
    let lo = g(at, nx, c.i, d.i) * (1.0 - c.f) + g(at, nx, c.i + 1u, d.i) * c.f;
    let hi = g(at, nx, c.i, d.i + 1u) * (1.0 - c.f) + g(at, nx, c.i + 1u, d.i + 1u) * c.f;
    return lo * (1.0 - d.f) + hi * d.f;
}

fn terrain(s: Surface, p: vec3<f32>) -> Hit {
    let nx = s.nx;
    let c = locate(p.x - s.a.x, s.a.w, s.nx);
    let d = locate(p.z - s.a.z, s.b.x, s.nz);
    let h = s.grid.x;
    let y = s.a.y + bilinear(h, false, nx, c, d);
    var sx = 0.0;
    if (c.inside) {
        sx = ((g(h, nx, c.i + 1u, d.i) - g(h, nx, c.i, d.i)) * (1.0 - d.f)
            + (g(h, nx, c.i + 1u, d.i + 1u) - g(h, nx, c.i, d.i + 1u)) * d.f) / s.a.w;
    }
    var sz = 0.0;
    if (d.inside) {
        sz = ((g(h, nx, c.i, d.i + 1u) - g(h, nx, c.i, d.i)) * (1.0 - c.f)
            + (g(h, nx, c.i + 1u, d.i + 1u) - g(h, nx, c.i + 1u, d.i)) * c.f) / s.b.x;
    }
    let up = vec3<f32>(-sx, 1.0, -sz);
    let normal = up * (1.0 / len3(up));
    let rough = bilinear(s.grid.y, (s.grid.w & 1u) != 0u, nx, c, d);
    let stat = bilinear(s.grid.z, (s.grid.w & 2u) != 0u, nx, c, d);
    return Hit((p.y - y) * normal.y, normal, vec3<f32>(rough, stat, s.b.y));
}

// The share of the step a node spent in contact, as respond.rs's share_in_contact: 1 when
// it started the step on the surface (its gap within 8ε·(1 m + |x0|∞)), else depth over
// how far it approached the surface in the step.
fn share_in_contact(xt: vec3<f32>, x0: vec3<f32>, n: vec3<f32>, vs: vec3<f32>, depth: f32,
                    h: f32) -> f32 {
    let approach = dot3(n, x0 - xt) + dot3(n, vs) * h;
    let gap = approach - depth;
    let a = abs(x0);
    if (gap > 8.0 * 1.1920929e-7 * (1.0 + max(a.x, max(a.y, a.z)))) { return depth / approach; }
    return 1.0;
}

// Surface s seen from p when p is closer to it than r; phi ≥ r means no touch.
fn touch(s: Surface, p: vec3<f32>, r: f32) -> Hit {
    if (s.kind == 0u) {
        return Hit(dot3(s.a.xyz, p) - s.a.w, s.a.xyz, s.material.xyz);
    }
    if (s.kind == 4u) { return terrain(s, p); }
    let reach = s.bound.w + r;
    let db = p - s.bound.xyz;
    if (dot3(db, db) >= reach * reach) { return Hit(r, vec3<f32>(0.0), vec3<f32>(0.0)); }
    var hit: Hit;
    if (s.kind == 1u) {
        hit = ball(p, s.a.xyz, s.a.w);
    } else if (s.kind == 2u) {
        let ab = s.b.xyz - s.a.xyz;
        let len2 = dot3(ab, ab);
        var t = 0.0;
        if (len2 > 0.0) { t = clamp(dot3(p - s.a.xyz, ab) / len2, 0.0, 1.0); }
        hit = ball(p, s.a.xyz + ab * t, s.a.w);
    } else {
        hit = box_distance(p, s);
    }
    hit.material = s.material.xyz;
    return hit;
}

// Seed 004's roughness of node i driven along t over a surface with normal n: the friction
// law of hooke's contact/coulomb.rs (roughness_along), held against it by tests/contacts.rs.
fn roughness_along(i: u32, nc: NodeContact, n: vec3<f32>, t: vec3<f32>) -> f32 {
    if (nc.forward_node < 0 && nc.backward_node < 0) { return nc.forward; }
    var ahead = x_old[i].xyz;
    var behind = x_old[i].xyz;
    if (nc.forward_node >= 0) { ahead = x_old[u32(nc.forward_node)].xyz; }
    if (nc.backward_node >= 0) { behind = x_old[u32(nc.backward_node)].xyz; }
    let front = ahead - behind;
    let ft = front - n * dot3(front, n);
    let l = len3(ft);
    var c = 0.0;
    if (l > 0.0) { c = dot3(ft, t) / l; }
    let w = (clamp(c, -1.0, 1.0) + 1.0) * 0.5;
    return nc.forward * w + nc.backward * (1.0 - w);
}

@compute @workgroup_size(256)
fn surface_pass(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_id) lid: vec3<u32>) {
    let i = item(wid, nwg, lid);
    if (i >= counts.nodes) { return; }
    let nc = node_contact[i];
    if (nc.free == 0u) { return; }
    let world = worlds[node_index[i].z];
    let h = world.h;
    let row = select(0u, clock[0], counts.timed != 0u) * counts.surfaces;
    var xi = x[i].xyz;
    var vi = v[i].xyz;
    let r = nc.radius;
    for (var k = 0u; k < world.surf_count; k += 1u) {
        let s = surfaces[row + world.surf_start + k];
        let hit = touch(s, xi, r);
        let depth = r - hit.phi;
        if (!(hit.phi < r) || depth <= 0.0) { continue; }
        // Pushed out; the approach velocity removed, or reversed by the restitution.
        let n = hit.normal;
        let share = share_in_contact(xi, x_old[i].xyz, n, s.velocity.xyz, depth, h);
        xi += n * depth;
        let vr = vi - s.velocity.xyz;
        let vn = dot3(vr, n);
        var vt = vr - n * vn;
        var vn_new = vn;
        if (vn < 0.0) {
            let e = select(0.0, hit.material.z, -vn > world.threshold);
            vn_new = -vn * e;
        }
        let dvn = vn_new - vn;
        // Coulomb friction as contact/coulomb.rs and respond.rs's impulse form: held
        // (speed <= mu_s·dvn) undoes this step's slide since the node touched, slipping
        // takes mu_k·dvn.
        let speed = len3(vt);
        if (speed > 0.0) {
            let t = vt / speed;
            let rough = roughness_along(i, nc, n, t);
            let mu_s = hit.material.y * rough;
            let mu_k = hit.material.x * rough;
            if (speed <= mu_s * dvn) {
                let slide = (xi - x_old[i].xyz) - s.velocity.xyz * h;
                xi -= (slide - n * dot3(slide, n)) * share;
                vt = vec3<f32>(0.0);
            } else {
                let dv = min(mu_k * dvn, speed);
                xi -= t * (dv * h * share);
                vt = vt - t * dv;
            }
        }
        vi = (vt + n * vn_new) + s.velocity.xyz;
    }
    x[i] = vec4<f32>(xi, 0.0);
    v[i] = vec4<f32>(vi, 0.0);
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

// Each muscle's spring takes this step's rest length L₀·max(0, 1 + a·s(t)), computed on the
// host in f64 as on the CPU (stage muscles).
@compute @workgroup_size(64)
fn muscles(@builtin(global_invocation_id) gid: vec3<u32>) {
    let m = gid.x;
    if (m >= counts.muscles) { return; }
    springs[muscle_pos[m]].rest = muscle_rest[clock[0] * counts.muscles + m];
}

// At the end of a step, springs stretched past rest·limit tear (stage tear): they exert no
// force from then on, and the host removes them from the CPU's model at the next read-back.
@compute @workgroup_size(256)
fn tear(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>) {
    let p = item(wid, nwg, lid);
    if (p >= counts.springs) { return; }
    let s = springs[p];
    if (s.limit <= 0.0 || torn[p] != 0u) { return; }
    let d = x[s.a].xyz - x[s.b].xyz;
    let reach = s.rest * s.limit;
    if (d.x * d.x + d.y * d.y + d.z * d.z > reach * reach) {
        torn[p] = 1u;
        springs[p].k = 0.0;
        springs[p].c_axial = 0.0;
        springs[p].c_iso = 0.0;
    }
}

// The next integration step reads the next row of targets.
@compute @workgroup_size(1)
fn tick() {
    clock[0] = clock[0] + 1u;
}
