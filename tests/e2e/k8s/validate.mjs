// Validates Kubernetes objects against the API's schemas (kubernetes-models, generated
// from the Kubernetes OpenAPI spec), as the API server would with fieldValidation=Strict:
// types, formats, required fields, and no field the schema does not know.
//   node validate.mjs FILE.json...   (each a JSON array of objects)
// Prints ok/FAIL per object; exits 1 if any object is invalid.
import { readFileSync } from "node:fs";

// apps/v1 DaemonSet -> IoK8sApiAppsV1DaemonSet, v1 ConfigMap -> IoK8sApiCoreV1ConfigMap
function schemaName(apiVersion, kind) {
	const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["core", apiVersion];
	const cap = (s) => s[0].toUpperCase() + s.slice(1);
	return `IoK8sApi${cap(group.split(".")[0])}${cap(version)}${kind}`;
}

// The generated validators read every property their schema knows (and list the
// keys of free-form maps); a key of the object never read is unknown to the API.
function watch(value, path, seen) {
	if (value === null || typeof value !== "object") return value;
	const read = new Set();
	seen.push({ value, path, read });
	const copy = Array.isArray(value)
		? value.map((v, i) => watch(v, `${path}/${i}`, seen))
		: Object.fromEntries(Object.entries(value).map(([k, v]) => [k, watch(v, `${path}/${k}`, seen)]));
	return new Proxy(copy, {
		get(t, k, r) { read.add(k); return Reflect.get(t, k, r); },
		ownKeys(t) { for (const k of Reflect.ownKeys(t)) read.add(k); return Reflect.ownKeys(t); },
	});
}

// The precompiled validators carry no messages: say it from keyword and params.
function explain({ instancePath, keyword, params }) {
	const at = instancePath || "/";
	switch (keyword) {
	case "required": return `${at}/${params.missingProperty}: required field missing`;
	case "type": return `${at}: must be ${params.type}`;
	case "enum": return `${at}: must be one of ${params.allowedValues.join(", ")}`;
	case "format": return `${at}: must be a ${params.format}`;
	default: return `${at}: ${keyword} ${JSON.stringify(params)}`;
	}
}

async function check(obj) {
	let validate;
	try {
		({ validate } = await import(`kubernetes-models/_schemas/${schemaName(obj.apiVersion, obj.kind)}`));
	} catch {
		return [`no schema for ${obj.apiVersion} ${obj.kind}`];
	}
	const seen = [];
	const problems = validate(watch(obj, "", seen)) ? [] : validate.errors.map(explain);
	for (const { value, path, read } of seen)
		if (!Array.isArray(value))
			for (const k of Object.keys(value))
				if (!read.has(k)) problems.push(`${path}/${k}: unknown field`);
	return problems;
}

let failed = 0;
for (const file of process.argv.slice(2)) {
	for (const obj of JSON.parse(readFileSync(file, "utf8"))) {
		const what = `${file.split("/").pop()}: ${obj.kind}/${obj.metadata?.name}`;
		const problems = await check(obj);
		if (problems.length) {
			failed++;
			console.log(`FAIL ${what}\n  ${problems.join("\n  ")}`);
		} else {
			console.log(`ok ${what}`);
		}
	}
}
process.exit(failed ? 1 : 0);
