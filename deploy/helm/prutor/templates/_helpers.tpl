{{- define "prutor.name" -}}{{ .Release.Name }}{{- end -}}

{{- define "prutor.labels" -}}
app.kubernetes.io/name: prutor
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "prutor.selector" -}}
app.kubernetes.io/name: prutor
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "prutor.image" -}}{{ printf "%s/%s:%s" .root.Values.image.registry .name .root.Values.image.tag }}{{- end -}}

{{- define "prutor.secretName" -}}
{{- if .Values.secrets.existingSecret -}}{{ .Values.secrets.existingSecret }}{{- else -}}{{ .Release.Name }}-secrets{{- end -}}
{{- end -}}

{{- define "prutor.svc" -}}{{ printf "%s-%s.%s.svc.cluster.local" .root.Release.Name .name .root.Release.Namespace }}{{- end -}}

{{- define "prutor.dbHost" -}}
{{- if .Values.mariadb.enabled -}}{{ include "prutor.svc" (dict "root" . "name" "mariadb") }}{{- else -}}{{ required "mariadb.host is required when mariadb.enabled=false" .Values.mariadb.host }}{{- end -}}
{{- end -}}

{{- define "prutor.memcachedServers" -}}
{{- if .Values.memcached.enabled -}}
{{- $root := . -}}
{{- $nodes := list -}}
{{- range $i := until (int .Values.memcached.replicas) -}}
{{- $nodes = append $nodes (printf "%s-memcached-%d.%s-memcached.%s.svc.cluster.local:11211" $root.Release.Name $i $root.Release.Name $root.Release.Namespace) -}}
{{- end -}}
{{- join "," $nodes -}}
{{- else -}}{{ required "memcached.servers is required when memcached.enabled=false" .Values.memcached.servers }}{{- end -}}
{{- end -}}

{{- define "prutor.mongoUrl" -}}
{{- if .Values.mongo.enabled -}}{{ printf "mongodb://%s:27017/%s" (include "prutor.svc" (dict "root" . "name" "mongo")) .Values.app.dbName }}{{- else -}}{{ required "mongo.url is required when mongo.enabled=false" .Values.mongo.url }}{{- end -}}
{{- end -}}

{{/* What both the webapp and the engine read (CONTRACTS.md). */}}
{{- define "prutor.appEnv" -}}
- name: DB_HOST
  value: {{ include "prutor.dbHost" . | quote }}
- name: DB_PORT
  value: {{ .Values.mariadb.port | quote }}
- name: DB_NAME
  value: {{ .Values.app.dbName | quote }}
- name: DB_USER
  value: {{ .Values.app.dbUser | quote }}
- name: DB_PASSWORD
  valueFrom: { secretKeyRef: { name: {{ include "prutor.secretName" . }}, key: db-password } }
- name: SESSION_SECRET
  valueFrom: { secretKeyRef: { name: {{ include "prutor.secretName" . }}, key: session-secret } }
- name: SESSION_TTL_S
  value: {{ .Values.app.sessionTtlSeconds | quote }}
- name: MEMCACHED_SERVERS
  value: {{ include "prutor.memcachedServers" . | quote }}
- name: MONGO_URL
  value: {{ include "prutor.mongoUrl" . | quote }}
{{- end -}}
