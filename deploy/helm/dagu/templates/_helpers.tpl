{{/* Names, labels and the pod parts every dagu component shares. */}}

{{- define "dagu.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Release-scoped base name; components append -server, -scheduler, ... (kept under 63 characters). */}}
{{- define "dagu.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 50 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 50 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 50 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "dagu.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "dagu.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* Selector labels of one component: call with (dict "root" $ "component" "scheduler"). */}}
{{- define "dagu.selectorLabels" -}}
app.kubernetes.io/name: {{ include "dagu.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "dagu.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{- define "dagu.claimName" -}}
{{- .Values.persistence.existingClaim | default (include "dagu.fullname" .) }}
{{- end }}

{{/* The Secret holding the console token: the operator's, or the chart's own. */}}
{{- define "dagu.authSecret" -}}
{{- .Values.auth.existingSecret | default (include "dagu.fullname" .) }}
{{- end }}
{{- define "dagu.authSecretKey" -}}
{{- if .Values.auth.existingSecret }}{{ .Values.auth.existingSecretKey }}{{ else }}auth-token{{ end }}
{{- end }}

{{- define "dagu.coordinatorSecret" -}}
{{- .Values.coordinator.existingSecret | default (include "dagu.fullname" .) }}
{{- end }}
{{- define "dagu.coordinatorSecretKey" -}}
{{- if .Values.coordinator.existingSecret }}{{ .Values.coordinator.existingSecretKey }}{{ else }}coordinator-token{{ end }}
{{- end }}

{{- define "dagu.coordinatorScheme" -}}
{{- if .Values.coordinator.tls.secretName }}https{{ else }}http{{ end }}
{{- end }}

{{- define "dagu.coordinatorUrl" -}}
{{- .Values.coordinator.url | default (printf "%s://%s-coordinator:%d" (include "dagu.coordinatorScheme" .) (include "dagu.fullname" .) (int .Values.coordinator.port)) }}
{{- end }}

{{/* Where the coordinator's TLS Secret is mounted (coordinator and workers). */}}
{{- define "dagu.tlsDir" -}}/etc/dagu/coordinator-tls{{- end }}

{{/*
Pod-level fields of every component: pull secrets, security context, no API token (dagu never calls the
Kubernetes API). Call with (dict "root" $ "component" "scheduler" "values" .Values.scheduler).
*/}}
{{- define "dagu.podCommon" -}}
automountServiceAccountToken: false
{{- with .root.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- toYaml .root.Values.podSecurityContext | nindent 2 }}
{{- with .values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/* Container fields every component shares: image, security context, resources. */}}
{{- define "dagu.containerCommon" -}}
image: {{ include "dagu.image" .root | quote }}
imagePullPolicy: {{ .root.Values.image.pullPolicy }}
securityContext:
  {{- toYaml .root.Values.containerSecurityContext | nindent 2 }}
resources:
  {{- toYaml .values.resources | nindent 2 }}
{{- end }}

{{/*
Environment every component shares: DAGU_HOME (on the shared volume, or the pod's own scratch with
PostgreSQL), the one config.yaml, the execution mode, the storage backend. Component variables follow it,
the operator's extraEnv comes last and wins.
*/}}
{{- define "dagu.commonEnv" -}}
{{- include "dagu.checkStorage" . -}}
- name: DAGU_HOME
  value: {{ .Values.home | quote }}
- name: DAGU_CONFIG
  value: /etc/dagu/config/config.yaml
- name: DAGU_DEFAULT_EXECUTION_MODE
  value: {{ .Values.executionMode | quote }}
{{- if include "dagu.postgres" . }}
- name: DAGU_STORAGE_BACKEND
  value: postgres
{{- end }}
{{- end }}

{{- define "dagu.volumeMounts" -}}
- name: data
  mountPath: {{ .Values.home | quote }}
- name: config
  mountPath: /etc/dagu/config
  readOnly: true
{{- end }}

{{/* DAGU_HOME: the shared claim, or with PostgreSQL a scratch directory of the pod's own. */}}
{{- define "dagu.volumes" -}}
- name: data
{{- if include "dagu.postgres" . }}
  emptyDir: {}
{{- else }}
  persistentVolumeClaim:
    claimName: {{ include "dagu.claimName" . }}
{{- end }}
- name: config
  configMap:
    name: {{ include "dagu.fullname" . }}-config
{{- end }}

{{/* Restarts the pods when config.yaml changes (they read it only at start). */}}
{{- define "dagu.configChecksum" -}}
checksum/config: {{ include (print .Template.BasePath "/configmap.yaml") . | sha256sum }}
{{- end }}

{{/* A Secret data value: the token given in values, else the one already stored, else a new random one. */}}
{{- define "dagu.tokenData" -}}
{{- if .value }}{{ .value | b64enc | quote }}
{{- else if .old }}{{ .old | quote }}
{{- else }}{{ randAlphaNum 48 | b64enc | quote }}
{{- end }}
{{- end }}

{{/* Worker labels as dagu reads them: key=value,key2=value2 (keys sorted, as Helm ranges over a map). */}}
{{- define "dagu.workerLabels" -}}
{{- $pairs := list }}
{{- range $k, $v := . }}
{{- $pairs = append $pairs (printf "%s=%v" $k $v) }}
{{- end }}
{{- join "," $pairs }}
{{- end }}
