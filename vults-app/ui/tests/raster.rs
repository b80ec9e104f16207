//! Snapshots without a GPU: egui's own triangles drawn on the CPU, for `Harness::snapshot`.
//!
//! egui tessellates every frame into textured triangles in points; drawing them takes no GPU
//! stack (wgpu, naga, a Vulkan driver), only what egui's renderers do: scale by
//! `pixels_per_point`, cut to each mesh's clip rectangle, multiply the vertex colour by the
//! texel, blend premultiplied. The picture is the same on every machine that runs the same
//! code, so a snapshot differs only when the window does.
//!
//! The rules, as `egui_wgpu` and `egui_glow` draw into an 8-bit framebuffer:
//! - colours are sRGB-encoded and premultiplied, and are multiplied and blended as such
//!   (`out = vertex × texel`, `dst = out + dst × (1 − out.a)`); the frame starts transparent;
//! - a pixel is covered when its centre is inside the triangle, with the top-left rule for
//!   centres on an edge, so two triangles sharing an edge never paint a pixel twice;
//! - textures are sampled bilinearly, or at the nearest texel where the texture asks for it,
//!   clamped at the edges (repeated where it asks for that).

use std::collections::HashMap;

use egui::epaint::{ClippedPrimitive, ImageData, ImageDelta, Mesh, Primitive, Vertex};
use egui::{Color32, TextureFilter, TextureId, TextureOptions, TextureWrapMode, TexturesDelta};
use egui_kittest::TestRenderer;

/// The renderer the ui tests' harnesses draw snapshots with ([`crate::fixtures::builder`]).
#[derive(Default)]
pub struct CpuRenderer {
    textures: HashMap<TextureId, Texture>,
}

struct Texture {
    size: [usize; 2],
    pixels: Vec<Color32>,
    options: TextureOptions,
}

impl Texture {
    fn set(&mut self, delta: &ImageDelta) {
        let ImageData::Color(image) = &delta.image;
        self.options = delta.options;
        match delta.pos {
            None => {
                self.size = image.size;
                self.pixels = image.pixels.clone();
            }
            Some([x0, y0]) => {
                let [w, h] = image.size;
                for y in 0..h {
                    let row = (y0 + y) * self.size[0] + x0;
                    self.pixels[row..row + w].copy_from_slice(&image.pixels[y * w..(y + 1) * w]);
                }
            }
        }
    }

    /// The texel at (`x`, `y`), with the texture's wrap mode, as premultiplied 0..1 floats.
    fn texel(&self, x: i64, y: i64) -> [f32; 4] {
        let (w, h) = (self.size[0] as i64, self.size[1] as i64);
        let wrap = |v: i64, n: i64| match self.options.wrap_mode {
            TextureWrapMode::Repeat => v.rem_euclid(n),
            TextureWrapMode::MirroredRepeat => {
                let m = v.rem_euclid(2 * n);
                if m < n { m } else { 2 * n - 1 - m }
            }
            TextureWrapMode::ClampToEdge => v.clamp(0, n - 1),
        };
        unit(self.pixels[(wrap(y, h) * w + wrap(x, w)) as usize])
    }

    /// The texture at normalized `uv`.
    fn sample(&self, u: f32, v: f32) -> [f32; 4] {
        if self.size[0] == 0 || self.size[1] == 0 {
            return [1.0; 4];
        }
        let x = u * self.size[0] as f32 - 0.5;
        let y = v * self.size[1] as f32 - 0.5;
        if self.options.magnification == TextureFilter::Nearest {
            return self.texel(x.round() as i64, y.round() as i64);
        }
        let (x0, y0) = (x.floor(), y.floor());
        let (fx, fy) = (x - x0, y - y0);
        let (x0, y0) = (x0 as i64, y0 as i64);
        let [a, b, c, d] = [
            self.texel(x0, y0),
            self.texel(x0 + 1, y0),
            self.texel(x0, y0 + 1),
            self.texel(x0 + 1, y0 + 1),
        ];
        std::array::from_fn(|i| {
            let top = a[i] + (b[i] - a[i]) * fx;
            let bottom = c[i] + (d[i] - c[i]) * fx;
            top + (bottom - top) * fy
        })
    }
}

/// Twice the signed area of (`a`, `b`, (`x`, `y`)): which side of `a`→`b` the point is on.
fn edge(a: (f32, f32), b: (f32, f32), x: f32, y: f32) -> f32 {
    (b.0 - a.0) * (y - a.1) - (b.1 - a.1) * (x - a.0)
}

fn unit(c: Color32) -> [f32; 4] {
    c.to_array().map(|v| v as f32 / 255.0)
}

/// A frame being drawn: premultiplied sRGB-encoded RGBA, 0..1.
struct Frame {
    width: usize,
    height: usize,
    pixels: Vec<[f32; 4]>,
}

/// A scissor rectangle in whole pixels: `x0..x1`, `y0..y1`.
#[derive(Clone, Copy)]
struct Clip {
    x0: usize,
    y0: usize,
    x1: usize,
    y1: usize,
}

impl Frame {
    /// Every triangle of `mesh`, cut to `clip`, textured by `texture`.
    fn mesh(&mut self, mesh: &Mesh, ppp: f32, clip: Clip, texture: &Texture) {
        for t in mesh.indices.chunks_exact(3) {
            let v = [0, 1, 2].map(|i| &mesh.vertices[t[i] as usize]);
            self.triangle(v, ppp, clip, texture);
        }
    }

    fn triangle(&mut self, v: [&Vertex; 3], ppp: f32, clip: Clip, texture: &Texture) {
        let p = v.map(|v| (v.pos.x * ppp, v.pos.y * ppp));
        let area = edge(p[0], p[1], p[2].0, p[2].1);
        if area == 0.0 || !area.is_finite() {
            return;
        }
        // One orientation for the rule below: a negative area in this y-down frame.
        let (p, v) = if area > 0.0 {
            ([p[0], p[2], p[1]], [v[0], v[2], v[1]])
        } else {
            (p, v)
        };
        let area = -area.abs();
        let edges = [(p[1], p[2]), (p[2], p[0]), (p[0], p[1])];
        // The top-left rule: a centre exactly on an edge belongs to the triangle only when the
        // edge is a top edge (horizontal, the rest below it) or a left edge. In this
        // orientation a top edge runs right to left and a left edge runs downwards.
        let owned = edges.map(|(a, b)| {
            let (dx, dy) = (b.0 - a.0, b.1 - a.1);
            (dy == 0.0 && dx < 0.0) || dy > 0.0
        });
        let inside = |x: usize, y: usize| {
            let (cx, cy) = (x as f32 + 0.5, y as f32 + 0.5);
            (0..3).all(|i| {
                let w = edge(edges[i].0, edges[i].1, cx, cy);
                w < 0.0 || (w == 0.0 && owned[i])
            })
        };
        let (mut min_x, mut max_x, mut min_y, mut max_y) = (p[0].0, p[0].0, p[0].1, p[0].1);
        for q in &p[1..] {
            min_x = min_x.min(q.0);
            max_x = max_x.max(q.0);
            min_y = min_y.min(q.1);
            max_y = max_y.max(q.1);
        }
        let x_lo = (min_x.floor().max(clip.x0 as f32)) as usize;
        let x_hi = (max_x.ceil().min(clip.x1 as f32)) as usize;
        let y_lo = (min_y.floor().max(clip.y0 as f32)) as usize;
        let y_hi = (max_y.ceil().min(clip.y1 as f32)) as usize;
        if x_lo >= x_hi || y_lo >= y_hi {
            return;
        }
        let colors = v.map(|v| unit(v.color));
        let solid_color = v[0].color == v[1].color && v[1].color == v[2].color;
        let solid_uv = v[0].uv == v[1].uv && v[1].uv == v[2].uv;
        // Most of a window is rectangles of one colour on the atlas' white texel: one source
        // colour for the whole triangle.
        let constant = (solid_color && solid_uv).then(|| {
            let texel = texture.sample(v[0].uv.x, v[0].uv.y);
            [0, 1, 2, 3].map(|i| colors[0][i] * texel[i])
        });
        if constant.is_some_and(|c| c == [0.0; 4]) {
            return;
        }
        for y in y_lo..y_hi {
            // The covered pixels of a row are one run (the triangle is convex): find its ends,
            // then paint the run without testing each pixel.
            let Some(first) = (x_lo..x_hi).find(|&x| inside(x, y)) else {
                continue;
            };
            let mut last = first;
            // Step in halves to the run's end: inside until it is not.
            let mut step = (x_hi - first).next_power_of_two();
            while step > 0 {
                if last + step < x_hi && inside(last + step, y) {
                    last += step;
                } else {
                    step /= 2;
                }
            }
            let row = y * self.width;
            let cy = y as f32 + 0.5;
            for x in first..=last {
                let src = match constant {
                    Some(c) => c,
                    None => {
                        let cx = x as f32 + 0.5;
                        let l0 = edge(edges[0].0, edges[0].1, cx, cy) / area;
                        let l1 = edge(edges[1].0, edges[1].1, cx, cy) / area;
                        let l2 = 1.0 - l0 - l1;
                        let u = l0 * v[0].uv.x + l1 * v[1].uv.x + l2 * v[2].uv.x;
                        let s = l0 * v[0].uv.y + l1 * v[1].uv.y + l2 * v[2].uv.y;
                        let texel = texture.sample(u, s);
                        let mut c = [0.0; 4];
                        for i in 0..4 {
                            let vc = l0 * colors[0][i] + l1 * colors[1][i] + l2 * colors[2][i];
                            c[i] = vc * texel[i];
                        }
                        c
                    }
                };
                let dst = &mut self.pixels[row + x];
                if src[3] >= 1.0 {
                    *dst = src;
                    continue;
                }
                let keep = 1.0 - src[3];
                for i in 0..4 {
                    dst[i] = (src[i] + dst[i] * keep).clamp(0.0, 1.0);
                }
            }
        }
    }

    fn into_image(self) -> image::RgbaImage {
        let bytes = self
            .pixels
            .iter()
            .flat_map(|p| p.map(|c| (c * 255.0).round() as u8))
            .collect();
        image::RgbaImage::from_raw(self.width as u32, self.height as u32, bytes)
            .expect("width × height pixels")
    }
}

impl TestRenderer for CpuRenderer {
    fn handle_delta(&mut self, delta: &mut TexturesDelta) {
        for (id, deltas) in delta.set.drain() {
            for d in deltas {
                let texture = self.textures.entry(id).or_insert_with(|| Texture {
                    size: [0, 0],
                    pixels: Vec::new(),
                    options: d.options,
                });
                texture.set(&d);
            }
        }
        for id in delta.free.drain() {
            self.textures.remove(&id);
        }
    }

    fn render(
        &mut self,
        ctx: &egui::Context,
        output: &egui::FullOutput,
    ) -> Result<image::RgbaImage, String> {
        let ppp = ctx.pixels_per_point();
        let size = ctx.content_rect().size() * ppp;
        let (width, height) = (size.x.round() as usize, size.y.round() as usize);
        let mut frame = Frame {
            width,
            height,
            pixels: vec![[0.0; 4]; width * height],
        };
        for ClippedPrimitive {
            clip_rect,
            primitive,
        } in ctx.tessellate(output.shapes.clone(), ppp)
        {
            let Primitive::Mesh(mesh) = primitive else {
                return Err("a paint callback cannot be drawn without a GPU".into());
            };
            let px = |v: f32, n: usize| ((v * ppp).round().max(0.0) as usize).min(n);
            let clip = Clip {
                x0: px(clip_rect.min.x, width),
                y0: px(clip_rect.min.y, height),
                x1: px(clip_rect.max.x, width),
                y1: px(clip_rect.max.y, height),
            };
            if clip.x0 >= clip.x1 || clip.y0 >= clip.y1 {
                continue;
            }
            let Some(texture) = self.textures.get(&mesh.texture_id) else {
                return Err(format!(
                    "a mesh names texture {:?}, which was never set",
                    mesh.texture_id
                ));
            };
            frame.mesh(&mesh, ppp, clip, texture);
        }
        Ok(frame.into_image())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui::{Rect, pos2};

    /// Two half-transparent triangles sharing a diagonal through pixel centres: every pixel of
    /// the square is painted exactly once (the top-left rule), none outside it.
    #[test]
    fn a_shared_edge_is_painted_once() {
        let mut r = CpuRenderer::default();
        let white = egui::ColorImage::new([1, 1], vec![Color32::WHITE]);
        let mut delta = TexturesDelta::default();
        delta.set.insert(
            TextureId::Managed(0),
            [ImageDelta::full(white, TextureOptions::LINEAR)].into(),
        );
        r.handle_delta(&mut delta);
        let texture = &r.textures[&TextureId::Managed(0)];
        let mut mesh = Mesh::default();
        mesh.add_colored_rect(
            Rect::from_min_max(pos2(2.0, 2.0), pos2(6.0, 6.0)),
            Color32::from_white_alpha(128),
        );
        let mut frame = Frame {
            width: 8,
            height: 8,
            pixels: vec![[0.0; 4]; 64],
        };
        let clip = Clip {
            x0: 0,
            y0: 0,
            x1: 8,
            y1: 8,
        };
        frame.mesh(&mesh, 1.0, clip, texture);
        let image = frame.into_image();
        for y in 0..8 {
            for x in 0..8 {
                let a = image.get_pixel(x, y)[3];
                let inside = (2..6).contains(&x) && (2..6).contains(&y);
                assert_eq!(a, if inside { 128 } else { 0 }, "pixel ({x}, {y})");
            }
        }
    }
}
