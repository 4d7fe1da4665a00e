{{/* Chart name, truncated to the 63 characters a DNS label allows. */}}
{{- define "berth.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Full name: <release>-<chart>, or the release name when it already contains the chart name. */}}
{{- define "berth.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "berth.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "berth.selectorLabels" -}}
app.kubernetes.io/name: {{ include "berth.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "berth.labels" -}}
helm.sh/chart: {{ include "berth.chart" . }}
{{ include "berth.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: scheduler
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "berth.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "berth.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "berth.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/*
The KubeSchedulerConfiguration as YAML. Profiles are config.profiles + config.extraProfiles;
config.pluginConfig entries are added to every profile that has no entry of the same name.
*/}}
{{- define "berth.schedulerConfig" -}}
{{- $c := .Values.config }}
{{- $profiles := list }}
{{- range $p := concat ($c.profiles | default list) ($c.extraProfiles | default list) }}
{{- $q := deepCopy $p }}
{{- $own := list }}
{{- range $pc := ($q.pluginConfig | default list) }}{{ $own = append $own $pc.name }}{{ end }}
{{- $merged := $q.pluginConfig | default list }}
{{- range $pc := ($c.pluginConfig | default list) }}
{{- if not (has $pc.name $own) }}{{ $merged = append $merged $pc }}{{ end }}
{{- end }}
{{- if $merged }}{{ $_ := set $q "pluginConfig" $merged }}{{ end }}
{{- $profiles = append $profiles $q }}
{{- end }}
{{- if not $profiles }}{{ fail "config.profiles (or config.extraProfiles) must name at least one profile" }}{{ end }}
{{- $le := .Values.leaderElection }}
{{- $cfg := dict
  "apiVersion" "kubescheduler.config.k8s.io/v1"
  "kind" "KubeSchedulerConfiguration"
  "leaderElection" (dict
      "leaderElect" $le.enabled
      "resourceName" $le.resourceName
      "resourceNamespace" .Release.Namespace
      "leaseDuration" $le.leaseDuration
      "renewDeadline" $le.renewDeadline
      "retryPeriod" $le.retryPeriod)
  "clientConnection" (deepCopy ($c.clientConnection | default dict))
  "profiles" $profiles }}
{{- toYaml (mergeOverwrite $cfg (deepCopy ($c.extra | default dict))) }}
{{- end }}
