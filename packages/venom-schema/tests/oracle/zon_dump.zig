//! Oracle for the venom-schema ZON reader: parses each .zon file named on the command line with
//! std.zig.Ast (mode .zon) and std.zig.ZonGen, and prints one JSON line per file:
//!   {"ok": VALUE}                       VALUE tagged exactly like venom_schema.zon.zon_to_json
//!   {"err": MSG, "at": [OFFSET, ...]}   byte offsets of the first error and of its notes
//!   {"zig_bug": WHAT, "at": [OFFSET]}   an input on which ZonGen itself would crash
//! Strings and names that are not valid UTF-8 print as {"invalid_utf8": "HEX"} (our reader
//! rejects them on purpose). Built for the Zig version pinned in uv.lock (0.17).
const std = @import("std");
const Ast = std.zig.Ast;
const Zoir = std.zig.Zoir;
const Writer = std.Io.Writer;

const max_safe_int: i64 = 9007199254740991;
const tag_names = [_][]const u8{ "enum", "char", "empty", "int", "float", "struct" };

pub fn main(init: std.process.Init) !void {
    const gpa = init.gpa;
    const io = init.io;
    var args = try init.minimal.args.iterateAllocator(init.arena.allocator());
    defer args.deinit();
    _ = args.skip();

    var out_buf: [1 << 16]u8 = undefined;
    var out_file = std.Io.File.stdout().writer(io, &out_buf);
    const out = &out_file.interface;

    while (args.next()) |path| {
        const source = try std.Io.Dir.cwd().readFileAllocOptions(io, path, gpa, .unlimited, .of(u8), 0);
        defer gpa.free(source);
        try dumpOne(gpa, source, out);
        try out.writeByte('\n');
    }
    try out.flush();
}

fn dumpOne(gpa: std.mem.Allocator, source: [:0]const u8, out: *Writer) !void {
    var tree = try Ast.parse(gpa, source, .{ .mode = .zon });
    defer tree.deinit(gpa);
    if (tree.errors.len == 0) {
        if (unparsableFloat(&tree)) |offset| {
            // ZonGen would reach `unreachable` (a panic here, undefined behaviour in a release
            // compiler): report it instead of crashing the whole batch.
            try out.print("{{\"zig_bug\":\"float literal without digits\",\"at\":[{d}]}}", .{offset});
            return;
        }
    }
    const zoir = try std.zig.ZonGen.generate(gpa, tree, .{});
    defer zoir.deinit(gpa);

    if (zoir.hasCompileErrors()) {
        const first = zoir.compile_errors[0];
        try out.writeAll("{\"err\":");
        try writeString(out, first.msg.get(&zoir));
        try out.print(",\"at\":[{d}", .{errorOffset(&tree, first.token, first.node_or_offset)});
        for (first.getNotes(&zoir)) |note| {
            try out.print(",{d}", .{errorOffset(&tree, note.token, note.node_or_offset)});
        }
        try out.writeAll("]}");
        return;
    }
    try out.writeAll("{\"ok\":");
    try writeValue(gpa, &zoir, .root, out);
    try out.writeByte('}');
}

/// Offset of a number literal that std.zig.parseNumberLiteral calls a float but
/// std.fmt.parseFloat rejects, such as `0x.p1`.
fn unparsableFloat(tree: *const Ast) ?u32 {
    for (tree.tokens.items(.tag), 0..) |tag, i| {
        if (tag != .number_literal) continue;
        const bytes = tree.tokenSlice(@intCast(i));
        if (std.zig.parseNumberLiteral(bytes) != .float) continue;
        _ = std.fmt.parseFloat(f128, bytes) catch return tree.tokenStart(@intCast(i));
    }
    return null;
}

fn errorOffset(tree: *const Ast, token: Ast.OptionalTokenIndex, node_or_offset: u32) u32 {
    if (token.unwrap()) |tok| return tree.tokenStart(tok) + node_or_offset;
    return tree.nodeToSpan(@fromBackingInt(node_or_offset)).main;
}

fn writeValue(gpa: std.mem.Allocator, zoir: *const Zoir, index: Zoir.Node.Index, out: *Writer) !void {
    switch (index.get(zoir)) {
        .true => try out.writeAll("true"),
        .false => try out.writeAll("false"),
        .null => try out.writeAll("null"),
        .pos_inf => try out.writeAll("{\"float\":\"inf\"}"),
        .neg_inf => try out.writeAll("{\"float\":\"-inf\"}"),
        .nan => try out.writeAll("{\"float\":\"nan\"}"),
        .int_literal => |int| switch (int) {
            .small => |small| try out.print("{d}", .{small}),
            .big => |big| {
                const text = try big.toStringAlloc(gpa, 10, .lower);
                defer gpa.free(text);
                const fits = if (big.toInt(i64)) |v| v >= -max_safe_int and v <= max_safe_int else |_| false;
                if (fits) try out.writeAll(text) else try out.print("{{\"int\":\"{s}\"}}", .{text});
            },
        },
        .float_literal => |wide| {
            const narrow: f64 = @floatCast(wide);
            if (std.math.isNan(narrow)) {
                try out.writeAll("{\"float\":\"nan\"}");
            } else if (std.math.isInf(narrow)) {
                try out.writeAll(if (narrow > 0) "{\"float\":\"inf\"}" else "{\"float\":\"-inf\"}");
            } else {
                try out.print("{e}", .{narrow});
            }
        },
        .char_literal => |cp| try out.print("{{\"char\":{d}}}", .{cp}),
        .enum_literal => |name| {
            try out.writeAll("{\"enum\":");
            try writeString(out, name.get(zoir));
            try out.writeByte('}');
        },
        .string_literal => |bytes| try writeString(out, bytes),
        .empty_literal => try out.writeAll("{\"empty\":true}"),
        .array_literal => |range| {
            try out.writeByte('[');
            for (0..range.len) |i| {
                if (i != 0) try out.writeByte(',');
                try writeValue(gpa, zoir, range.at(@intCast(i)), out);
            }
            try out.writeByte(']');
        },
        .struct_literal => |fields| {
            const wrap = fields.names.len == 1 and isTagName(fields.names[0].get(zoir));
            if (wrap) try out.writeAll("{\"struct\":");
            try out.writeByte('{');
            for (fields.names, 0..) |name, i| {
                if (i != 0) try out.writeByte(',');
                try writeString(out, name.get(zoir));
                try out.writeByte(':');
                try writeValue(gpa, zoir, fields.vals.at(@intCast(i)), out);
            }
            try out.writeByte('}');
            if (wrap) try out.writeByte('}');
        },
    }
}

fn isTagName(name: []const u8) bool {
    for (tag_names) |tag| {
        if (std.mem.eql(u8, name, tag)) return true;
    }
    return false;
}

fn writeString(out: *Writer, bytes: []const u8) !void {
    if (!std.unicode.utf8ValidateSlice(bytes)) {
        try out.writeAll("{\"invalid_utf8\":\"");
        for (bytes) |b| try out.print("{x:0>2}", .{b});
        try out.writeAll("\"}");
        return;
    }
    try out.writeByte('"');
    for (bytes) |b| switch (b) {
        '"' => try out.writeAll("\\\""),
        '\\' => try out.writeAll("\\\\"),
        0...0x1f, 0x7f => try out.print("\\u{x:0>4}", .{b}),
        else => try out.writeByte(b),
    };
    try out.writeByte('"');
}
