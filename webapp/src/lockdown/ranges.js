'use strict';
// Address ranges of a lab: "10.1.0.0/16, 192.168.5.20, 2001:db8::/48". Parsed once
// into a net.BlockList (Node's own matcher, IPv4 and IPv6, IPv4-mapped IPv6 too).
const net = require('node:net');

// Returns { list, ranges (normalised text), errors: [sentences] }.
function parseRanges(text) {
  const errors = [];
  const ranges = [];
  const list = new net.BlockList();
  for (const raw of String(text || '').split(/[\s,;]+/).filter(Boolean)) {
    const m = /^([^/]+)(?:\/(\d{1,3}))?$/.exec(raw);
    const family = m ? net.isIP(m[1]) : 0;
    if (!family) { errors.push(`"${raw.slice(0, 60)}" is not an address or a range like 10.1.0.0/16.`); continue; }
    const max = family === 4 ? 32 : 128;
    const bits = m[2] === undefined ? max : Number(m[2]);
    if (bits > max) { errors.push(`"${raw}" has a prefix longer than ${max} bits.`); continue; }
    list.addSubnet(m[1], bits, family === 4 ? 'ipv4' : 'ipv6');
    ranges.push(m[2] === undefined ? m[1] : `${m[1]}/${bits}`);
  }
  return { list: ranges.length ? list : null, ranges: ranges.join(', '), errors };
}

function allows(list, address) {
  if (!list) return true;
  const a = String(address || '');
  const family = net.isIP(a);
  if (!family) return false;
  return list.check(a, family === 4 ? 'ipv4' : 'ipv6');
}

module.exports = { parseRanges, allows };
